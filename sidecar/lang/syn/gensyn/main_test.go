package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestNorm(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ice_cream", "ice cream"}, {"well-being", "well being"}, {"big(a)", "big"},
		{"Achille_Gaggia", "achille gaggia"}, {"U.S.", "u s"},
	}
	for _, tt := range tests {
		if got := norm(tt.in); got != tt.want {
			t.Errorf("norm(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeep(t *testing.T) {
	p := params{senses: 2, share: 0.25, untagged: 1, pos: "nvar"}
	tests := []struct {
		name string
		ss   []sense
		want []int // numbers of the senses kept, in order
	}{
		{"the dominant sense", []sense{{pos: "n", number: 1, count: 10}, {pos: "n", number: 2, count: 1}}, []int{1}},
		{"two common senses, the more used first", []sense{{pos: "n", number: 1, count: 4}, {pos: "n", number: 2, count: 6}}, []int{2, 1}},
		{"past the first two senses", []sense{{pos: "n", number: 1, count: 1}, {pos: "n", number: 2, count: 1}, {pos: "n", number: 3, count: 8}}, nil},
		{"a verb reading that dominates", []sense{{pos: "n", number: 1, count: 1}, {pos: "v", number: 1, count: 9}}, []int{1}},
		{"untagged, one sense", []sense{{pos: "n", number: 1}}, []int{1}},
		{"untagged, two senses: order says nothing", []sense{{pos: "n", number: 1}, {pos: "n", number: 2}}, nil},
	}
	for _, tt := range tests {
		var got []int
		for _, s := range keep(tt.ss, p) {
			got = append(got, s.number)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: kept %v, want %v", tt.name, got, tt.want)
		}
	}
	nouns := p
	nouns.pos = "n"
	if got := keep([]sense{{pos: "n", number: 1, count: 1}, {pos: "v", number: 1, count: 9}}, nouns); len(got) != 0 {
		t.Errorf("nouns only: kept %v, want none (the noun sense is rare)", got)
	}
}

// A tiny WordNet: "bicycle, bike, wheel, cycle" under "wheeled vehicle",
// with "tandem" and "mountain bike" as kinds; "wheel" mostly means the
// round frame; "happen" shares a synset with "pass", which mostly means
// going past.
var (
	tinyIndexNoun = `  1 header
bicycle n 1 2 @ ~ 1 1 00000100
bike n 1 2 @ ~ 1 0 00000100
wheel n 2 2 @ ~ 2 2 00000200 00000100
cycle n 1 2 @ ~ 1 0 00000100
wheeled_vehicle n 1 1 ~ 1 0 00000300
tandem n 1 1 @ 1 0 00000400
mountain_bike n 1 1 @ 1 0 00000500
off-roader n 1 1 @ 1 0 00000500
`
	tinyDataNoun = `  1 header
00000100 06 n 04 bicycle 0 bike 0 wheel 1 cycle 0 003 @ 00000300 n 0000 ~ 00000400 n 0000 ~ 00000500 n 0000 | a wheeled vehicle  
00000200 06 n 01 wheel 0 000 | a simple machine  
00000300 06 n 01 wheeled_vehicle 0 002 ~ 00000100 n 0000 ~ 00000400 n 0000 | a vehicle with wheels  
00000400 06 n 01 tandem 0 001 @ 00000100 n 0000 | a bicycle for two  
00000500 06 n 02 mountain_bike 0 off-roader 0 001 @ 00000100 n 0000 | a bicycle with a sturdy frame  
`
	tinyIndexVerb = `happen v 1 1 @ 1 1 00000600
pass v 2 1 @ 2 2 00000700 00000600
`
	tinyDataVerb = `00000600 30 v 02 happen 0 pass 0 000 | come to pass  
00000700 38 v 01 pass 0 000 | go across or through  
`
	tinyCounts = `bicycle%1:06:00:: 1 5
wheel%1:06:00:: 1 20
wheel%1:06:01:: 2 1
happen%2:30:00:: 1 40
pass%2:38:00:: 1 30
pass%2:30:00:: 2 1
`
)

func TestRun(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	files := map[string]string{
		"index.noun": tinyIndexNoun, "data.noun": tinyDataNoun,
		"index.verb": tinyIndexVerb, "data.verb": tinyDataVerb,
		"cntlist.rev": tinyCounts, "noun.exc": "bicycles bicycle\n",
	}
	for _, name := range []string{"index.adj", "data.adj", "index.adv", "data.adv", "verb.exc", "adj.exc", "adv.exc"} {
		files[name] = ""
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := params{senses: 2, share: 0.25, untagged: 1, per: 8, words: 2, hyper: true, hypo: 3, pos: "nvar"}
	if err := run(src, out, p); err != nil {
		t.Fatal(err)
	}
	got := readTable(t, filepath.Join(out, "en.tsv.gz"))
	want := map[string][]string{
		// "wheel" is left out: its main sense is the round frame. Bike and
		// cycle were never tagged, so any sense of theirs may stand. A
		// compound that contains the key ("mountain bike" for "bike") only
		// narrows it, and hypernyms give at most two words.
		"bicycle":         {"bike", "cycle", "@wheeled vehicle", "~tandem", "~mountain bike"},
		"bike":            {"bicycle", "cycle", "@wheeled vehicle", "~tandem", "~off roader"},
		"cycle":           {"bicycle", "bike", "@wheeled vehicle", "~tandem", "~mountain bike"},
		"wheeled vehicle": {"~bicycle", "~tandem"}, // the most used kind first
		"tandem":          {"@bicycle", "@bike"},
		"mountain bike":   {"off roader", "@bicycle", "@cycle"},
		"off roader":      {"mountain bike", "@bicycle", "@bike"},
		// "happen" is a rare use of "pass": neither is listed for the other.
		"bicycles": {"=bicycle"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("table:\n%v\nwant:\n%v", got, want)
	}
	notice, err := os.ReadFile(filepath.Join(out, "NOTICE"))
	if err != nil || !strings.Contains(string(notice), "header") {
		t.Errorf("NOTICE %q, %v: want the data file's licence header", notice, err)
	}
}

func readTable(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		out[f[0]] = f[1:]
	}
	return out
}
