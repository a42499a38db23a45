package grep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/vault"
)

// write lays files out under a fresh folder and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func vaultRoot(dir string) Root {
	return Root{Source: "vault", Dir: dir, Rules: vault.NewRules(dir, nil, 0)}
}

// lines renders matches as path:line:text.
func lines(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Path+":"+strconv.Itoa(m.Line)+":"+m.Text)
	}
	return out
}

func TestMatchLines(t *testing.T) {
	text := "Server 10.0.0.1 is up\nserver 10.0.0.12 down\nKelvin \u212a and K\nčaj Čaj\nfoo\nbar\nend\r\n"
	tests := []struct {
		name string
		o    Options
		want []int // matching lines
	}{
		{"literal, smart case lower: insensitive", Options{Pattern: "server"}, []int{1, 2}},
		{"literal, smart case upper: sensitive", Options{Pattern: "Server"}, []int{1}},
		{"literal, sensitive", Options{Pattern: "server", Case: Sensitive}, []int{2}},
		{"literal, ignore", Options{Pattern: "SERVER", Case: Ignore}, []int{1, 2}},
		{"literal dots are no wildcard", Options{Pattern: "10.0.0.1"}, []int{1, 2}},
		{"literal, Unicode folding", Options{Pattern: "čaj"}, []int{4}},
		{"literal, Kelvin sign folds to k", Options{Pattern: "k", Case: Ignore}, []int{3}},
		{"regex", Options{Pattern: `10\.0\.0\.1\b`, Regex: true}, []int{1}},
		{"regex, smart case ignores escapes", Options{Pattern: `\S+ 10`, Regex: true}, []int{1, 2}},
		{"regex, anchors per line", Options{Pattern: `^bar$`, Regex: true}, []int{6}},
		{"regex across a line break matches no line", Options{Pattern: `foo\sbar`, Regex: true}, nil},
		{"regex, $ before a CRLF ending", Options{Pattern: `end`, Regex: true}, []int{7}},
	}
	dir := write(t, map[string]string{"a.md": text})
	for _, tt := range tests {
		res, err := Search(context.Background(), []Root{vaultRoot(dir)}, tt.o)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []int
		for _, m := range res.Matches {
			got = append(got, m.Line)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: lines %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestMatchDetails(t *testing.T) {
	// Context stops at the file's ends: no line follows the last line break.
	dir := write(t, map[string]string{"end.md": "ab\nlast ab\n"})
	res, err := Search(context.Background(), []Root{vaultRoot(dir)}, Options{Pattern: "ab", Context: 3})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Matches; len(m) != 2 || m[0].Before != nil || !reflect.DeepEqual(m[0].After, []string{"last ab"}) ||
		!reflect.DeepEqual(m[1].Before, []string{"ab"}) || m[1].After != nil {
		t.Errorf("context at the ends: %#v", m)
	}

	dir = write(t, map[string]string{"n.md": "one\ntwo ab ab\nthree\r\nfour\nfive\n"})
	res, err = Search(context.Background(), []Root{vaultRoot(dir)}, Options{Pattern: "ab", Context: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []Match{{Source: "vault", Path: "n.md", Line: 2, Text: "two ab ab", Spans: [][2]int{{4, 6}, {7, 9}},
		Before: []string{"one"}, After: []string{"three", "four"}}}
	if !reflect.DeepEqual(res.Matches, want) {
		t.Errorf("got %+v, want %+v", res.Matches, want)
	}
}

// TestSkipsWhatTheIndexSkips: dot folders, other file types, drawings,
// ignored folders, binary and non-UTF-8 files, files over the cap, and
// those a root hides.
func TestSkipsWhatTheIndexSkips(t *testing.T) {
	dir := write(t, map[string]string{
		"a.md":                  "needle",
		"Sub/b.MD":              "a needle too",
		".obsidian/c.md":        "needle",
		".git/d.md":             "needle",
		".quire/e.md":           "needle",
		"f.txt":                 "needle",
		"g.excalidraw.md":       "needle",
		"Templates/h.md":        "needle",
		"bin.md":                "needle\x00",
		"latin1.md":             "needle caf\xe9",
		"big.md":                "needle " + strings.Repeat("x", 100),
		"Private/secret.md":     "needle",
		"Private/also/other.md": "needle",
	})
	root := Root{Source: "vault", Dir: dir, Rules: vault.NewRules(dir, []string{"Templates/"}, 0),
		Hide: func(rel string) bool { return strings.HasPrefix(rel, "Private/") }}
	res, err := Search(context.Background(), []Root{root}, Options{Pattern: "needle", MaxBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lines(res.Matches), []string{"Sub/b.MD:1:a needle too", "a.md:1:needle"}; !reflect.DeepEqual(got, want) {
		t.Errorf("matches %q, want %q", got, want)
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Path+": "+strings.Fields(s.Reason)[0])
	}
	if want := []string{"big.md: too", "bin.md: binary:", "latin1.md: not"}; !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
	if res.Files != 5 {
		t.Errorf("files opened %d, want 5", res.Files)
	}
}

// TestBounds: the match cap keeps the first matches in path order
// whatever the workers' timing, and says it stopped; a spent time budget
// says so too.
func TestBounds(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		files[n+".md"] = "x\nx\nx\n"
	}
	dir := write(t, files)
	for range 20 {
		res, err := Search(context.Background(), []Root{vaultRoot(dir)}, Options{Pattern: "x", MaxMatches: 7, Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		got := lines(res.Matches)
		want := []string{"a.md:1:x", "a.md:2:x", "a.md:3:x", "b.md:1:x", "b.md:2:x", "b.md:3:x", "c.md:1:x"}
		if !reflect.DeepEqual(got, want) || !res.Truncated || res.Warning == "" {
			t.Fatalf("got %q truncated %v, want %q truncated", got, res.Truncated, want)
		}
	}
	res, err := Search(context.Background(), []Root{vaultRoot(dir)}, Options{Pattern: "x", MaxMatches: 24})
	if err != nil || res.Truncated || len(res.Matches) != 24 {
		t.Errorf("exactly the cap: %d matches, truncated %v, %v", len(res.Matches), res.Truncated, err)
	}
	one := write(t, map[string]string{"a.md": "x\nx\nx\n"})
	res, err = Search(context.Background(), []Root{vaultRoot(one)}, Options{Pattern: "x", MaxMatches: 2})
	if err != nil || !res.Truncated || len(res.Matches) != 2 {
		t.Errorf("more lines in one file than the cap: %d matches, truncated %v, %v", len(res.Matches), res.Truncated, err)
	}
	res, err = Search(context.Background(), []Root{vaultRoot(dir)}, Options{Pattern: "x", Timeout: time.Nanosecond})
	if err != nil || !res.TimedOut || res.Warning == "" {
		t.Errorf("time budget: timed out %v, warning %q, %v", res.TimedOut, res.Warning, err)
	}
}

func TestBadOptions(t *testing.T) {
	dir := write(t, map[string]string{"a.md": "x"})
	for _, o := range []Options{
		{},
		{Pattern: "a(", Regex: true},
		{Pattern: "a\nb"},
		{Pattern: "x", Case: "upper"},
		{Pattern: "x", Context: MaxContext + 1},
		{Pattern: "x", Source: "elsewhere"},
	} {
		_, err := Search(context.Background(), []Root{vaultRoot(dir)}, o)
		if !errors.Is(err, ErrPattern) && !errors.Is(err, ErrOption) {
			t.Errorf("%+v: %v, want a bad pattern or option", o, err)
		}
	}
}

// TestSources: every root is searched, each match carries its source, and
// a source filter keeps one.
func TestSources(t *testing.T) {
	a := write(t, map[string]string{"n.md": "needle"})
	b := write(t, map[string]string{"n.md": "needle"})
	roots := []Root{vaultRoot(a), {Source: "ops", Dir: b, Rules: vault.NewRules(b, nil, 0)}}
	res, err := Search(context.Background(), roots, Options{Pattern: "needle"})
	if err != nil || len(res.Matches) != 2 || res.Matches[0].Source != "vault" || res.Matches[1].Source != "ops" {
		t.Fatalf("both sources: %+v, %v", res.Matches, err)
	}
	res, err = Search(context.Background(), roots, Options{Pattern: "needle", Source: "ops"})
	if err != nil || len(res.Matches) != 1 || res.Matches[0].Source != "ops" {
		t.Errorf("source ops: %+v, %v", res.Matches, err)
	}
}

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		pattern string
		lit     string
		fold    bool
	}{
		{`(?m)server-[0-9]+\.lan`, "server-", false},
		{`(?m)\b[a-z]+_[a-z]+`, "_", false},
		{`(?mi)(warn): file`, ": file", true},
		{`(?m)foo|bar`, "", false},
		{`(?m)[0-9]+`, "", false},
		{`(?mi)ok`, "", false},  // k folds to the Kelvin sign
		{`(?mi)čaj`, "", false}, // Unicode folding
		{`(?m)Čaj x`, "Čaj x", false},
	}
	for _, tt := range tests {
		lit, fold := required(tt.pattern)
		if string(lit) != tt.lit || fold != tt.fold {
			t.Errorf("required(%q) = %q, %v; want %q, %v", tt.pattern, lit, fold, tt.lit, tt.fold)
		}
	}
}
