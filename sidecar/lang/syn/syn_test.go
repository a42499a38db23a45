package syn

import (
	"bytes"
	"compress/gzip"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func texts(ts []Term) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Text
	}
	return out
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name   string
		words  []string
		opt    Options
		want   string // a related word that must be there
		source string
		lemma  string
		rel    string
	}{
		{"a lemma", []string{"violin"}, Options{}, "fiddle", "violin", "violin", Synonym},
		{"a plural", []string{"violins"}, Options{}, "fiddle", "violins", "violin", Synonym},
		{"an irregular form", []string{"bought"}, Options{}, "purchase", "bought", "buy", Synonym},
		{"a past tense", []string{"finished"}, Options{}, "complete", "finished", "finish", Synonym},
		{"a gerund", []string{"choosing"}, Options{}, "select", "choosing", "choose", Synonym},
		{"a collocation", []string{"chess", "pieces"}, Options{}, "chessman", "chess pieces", "chess piece", Synonym},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := Expand(tt.words, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ts, func(x Term) bool { return x.Text == tt.want })
			if i < 0 {
				t.Fatalf("Expand(%q) = %v, want %q among them", tt.words, texts(ts), tt.want)
			}
			if got := ts[i]; got.Source != tt.source || got.Lemma != tt.lemma || got.Rel != tt.rel {
				t.Errorf("got %+v, want source %q, lemma %q, rel %q", got, tt.source, tt.lemma, tt.rel)
			}
		})
	}
}

func TestExpandLeavesOutWhatTheQuerySays(t *testing.T) {
	ts, err := Expand([]string{"the", "violin", "fiddle", "of", "cello"}, Options{Max: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ts {
		for _, w := range strings.Fields(x.Text) {
			if w == "violin" || w == "fiddle" || w == "cello" || w == "the" || w == "of" {
				t.Errorf("term %+v repeats a query word", x)
			}
		}
		if x.Source == "the" || x.Source == "of" {
			t.Errorf("term %+v expands a stop word", x)
		}
	}
	if ts, _ := Expand([]string{"the", "of", "zzzq"}, Options{}); ts != nil {
		t.Errorf("stop words and unknown words: got %v, want nothing", ts)
	}
}

func TestExpandWeights(t *testing.T) {
	ts, err := Expand([]string{"automobile"}, Options{Max: 2, Weight: 0.6, Decay: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 {
		t.Fatalf("Max 2: got %v", ts)
	}
	if got, want := []float64{ts[0].Weight, ts[1].Weight}, []float64{0.6, 0.3}; !reflect.DeepEqual(got, want) {
		t.Errorf("weights %v, want %v", got, want)
	}
	ts, _ = Expand([]string{"automobile"}, Options{})
	if len(ts) != DefaultMax || ts[0].Weight != DefaultWeight {
		t.Errorf("defaults: got %+v", ts)
	}
	// Off unless asked: the broader words.
	for _, x := range ts {
		if x.Rel != Synonym {
			t.Errorf("default options gave %+v", x)
		}
	}
}

func TestCandidates(t *testing.T) {
	tests := []struct {
		word string
		want string // must be among the candidates
	}{
		{"pieces", "piece"}, {"bodies", "body"}, {"boxes", "box"}, {"churches", "church"},
		{"ripened", "ripen"}, {"baked", "bake"}, {"making", "make"}, {"sailing", "sail"},
		{"fishermen", "fisherman"}, {"larger", "large"},
	}
	for _, tt := range tests {
		if got := candidates(tt.word); !slices.Contains(got, tt.want) {
			t.Errorf("candidates(%q) = %q, want %q among them", tt.word, got, tt.want)
		}
	}
	if got := candidates("is"); len(got) != 0 {
		t.Errorf("candidates(%q) = %q: too short to detach", "is", got)
	}
}

func gz(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	return b.Bytes()
}

func TestDecode(t *testing.T) {
	tb, err := decode(gz(t, "# header\nbike\tbicycle\ncar\tauto\t@motor vehicle\ncars\t=car\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tb.lookup("car"), []string{"auto", "@motor vehicle"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lookup(car) = %q, want %q", got, want)
	}
	if lemma, items := tb.entry("cars"); lemma != "car" || len(items) != 2 {
		t.Errorf("entry(cars) = %q, %q: want car's entry", lemma, items)
	}
	if got := tb.lookup("bus"); got != nil {
		t.Errorf("lookup(bus) = %q, want nil", got)
	}
	for _, bad := range []string{"car\tauto\nbike\tbicycle\n", "car\n", "car\t\n"} {
		if _, err := decode(gz(t, bad)); err == nil {
			t.Errorf("decode(%q): want an error", bad)
		}
	}
}

func TestEmbeddedTable(t *testing.T) {
	if got, limit := Size(), 2<<20; got > limit {
		t.Errorf("table is %d bytes gzipped, over %d", got, limit)
	}
	tb, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if n := tb.Len(); n < 50000 {
		t.Errorf("table has %d keys, want tens of thousands", n)
	}
}

func TestString(t *testing.T) {
	got := String([]Term{
		{Text: "fiddle", Weight: 0.5, Source: "violins", Lemma: "violin", Rel: Synonym},
		{Text: "bowed stringed instrument", Weight: 0.4, Source: "violins", Lemma: "violin", Rel: Hypernym},
		{Text: "bicycle", Weight: 0.5, Source: "bike", Lemma: "bike", Rel: Synonym},
	})
	want := "  violins (violin) → fiddle 0.50, bowed stringed instrument 0.40 (broader)\n  bike → bicycle 0.50\n"
	if got != want {
		t.Errorf("String:\n%s\nwant:\n%s", got, want)
	}
}

func BenchmarkExpand(b *testing.B) {
	if err := Warm(); err != nil {
		b.Fatal(err)
	}
	words := strings.Fields("what material is typically used today for the fixed lines supporting a mast")
	for b.Loop() {
		Expand(words, Options{})
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := decode(enGz); err != nil {
			b.Fatal(err)
		}
	}
}
