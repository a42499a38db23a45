package lang

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// translateQueries are the golden cases: a few questions in each direction.
var translateQueries = []struct {
	query    string
	from, to Lang
}{
	{"Come si fa il formaggio con il latte di pecora?", Italian, English},
	{"Quali città sono attraversate dal fiume?", Italian, English},
	{"storia della bicicletta nel 1890", Italian, English},
	{"¿Cuándo se construyó el puente de piedra?", Spanish, English},
	{"¿Qué porcentaje de la leche es agua?", Spanish, English},
	{"recetas de queso con leche de cabra", Spanish, English},
	{"Jak se vyrábí sýr z mléka?", Czech, English},
	{"Kdy byl postaven most přes řeku?", Czech, English},
	{"historie šachové hry", Czech, English},
	{"kolik mleka dava krava", Czech, English},
	{"How is cheese made from sheep milk?", English, Italian},
	{"When was the stone bridge built?", English, Spanish},
	{"history of the chess game", English, Czech},
	{"Wie wird Käse aus Schafsmilch gemacht?", German, English},
	{"history of the chess game", English, German},
	{"come importare le note in una cartella", Italian, English},
	{"jak zálohovat poznámky", Czech, English},
	{"atajo de teclado para la paleta de comandos", Spanish, English},
}

func TestTranslateGolden(t *testing.T) {
	var b strings.Builder
	for _, q := range translateQueries {
		e, err := Explain(q.query, q.from, q.to, Options{})
		if err != nil {
			t.Fatalf("Explain(%q): %v", q.query, err)
		}
		b.WriteString(q.query + "\n" + e.String() + "\n")
	}
	got := b.String()
	path := filepath.Join("testdata", "translate.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("translations changed; run go test -update if that is right\ngot:\n%s\nwant:\n%s", got, want)
	}
}

func TestTranslate(t *testing.T) {
	terms, err := Translate("il formaggio di Ariosto, 1516", Italian, English, Options{})
	if err != nil {
		t.Fatal(err)
	}
	byText := map[string]Term{}
	for _, term := range terms {
		byText[term.Text] = term
	}
	if got := byText["cheese"]; got.Source != "formaggio" || got.Via != ViaWord || got.Weight != DefaultWeight {
		t.Errorf("cheese = %+v, want from formaggio by word at %v", got, DefaultWeight)
	}
	for _, kept := range []string{"ariosto", "1516"} {
		if got := byText[kept]; got.Via != ViaKept || got.Weight != 1 {
			t.Errorf("%s = %+v, want kept at weight 1", kept, got)
		}
	}
	for _, stop := range []string{"il", "di"} {
		if _, ok := byText[stop]; ok {
			t.Errorf("stop word %q kept", stop)
		}
	}
}

func TestTranslateOptions(t *testing.T) {
	terms, err := Translate("barva", Czech, English, Options{Max: 2, Weight: 0.5, Decay: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var weights []float64
	for _, term := range terms {
		weights = append(weights, term.Weight)
	}
	if want := []float64{0.5, 0.25}; !slices.Equal(weights, want) {
		t.Errorf("weights = %v, want %v (terms %+v)", weights, want, terms)
	}
}

func TestTranslateByStem(t *testing.T) {
	// "formaggi" (plural) is not a headword; "formaggio" is.
	terms, err := Translate("formaggi", Italian, English, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(terms) == 0 || terms[0].Text != "cheese" || terms[0].Via != ViaStem {
		t.Errorf("Translate(formaggi) = %+v, want cheese by stem", terms)
	}
	// Too short a stem is not looked up.
	terms, _ = Translate("set", Italian, English, Options{})
	if len(terms) != 1 || terms[0].Via != ViaKept {
		t.Errorf("Translate(set) = %+v, want it kept", terms)
	}
}

func TestTranslateUnaccented(t *testing.T) {
	tests := []struct {
		word string
		from Lang
		want string
	}{
		{"citta", Italian, "city"}, // città
		{"mleko", Czech, "milk"},   // mléko
		{"mestech", Czech, "city"}, // městech, by stem (and "mést", sweep)
	}
	for _, tt := range tests {
		terms, err := Translate(tt.word, tt.from, English, Options{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, term := range terms {
			found = found || term.Text == tt.want
		}
		if !found {
			t.Errorf("Translate(%q) = %+v, want %q among them", tt.word, terms, tt.want)
		}
	}
}

func TestInterleave(t *testing.T) {
	got := interleave([]string{"a", "b", "c"}, []string{"x", "b"})
	if want := []string{"a", "x", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("interleave = %q, want %q", got, want)
	}
}

func TestTranslateNoTable(t *testing.T) {
	for _, p := range [][2]Lang{{Italian, Italian}, {Unknown, English}, {Italian, Spanish}, {English, Unknown}} {
		terms, err := Translate("formaggio", p[0], p[1], Options{})
		if err != nil || terms != nil {
			t.Errorf("Translate(%s→%s) = %v, %v; want nil, nil", p[0], p[1], terms, err)
		}
	}
}

func TestExplainDetects(t *testing.T) {
	e, err := Explain("¿Cómo se hace el queso?", Unknown, English, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.From != Spanish || !e.Detected || e.Confidence <= 0 {
		t.Errorf("Explain detected %q (%v, %.2f), want es", e.From, e.Detected, e.Confidence)
	}
	if !strings.Contains(e.String(), "queso → cheese") {
		t.Errorf("Explain.String() = %q, want the queso → cheese line", e.String())
	}
}

// BenchmarkTranslate measures one query's translation with the tables
// already loaded; it reports the median too, which the issue asks for.
func BenchmarkTranslate(b *testing.B) {
	for _, q := range translateQueries {
		if err := Warm(q.from, q.to); err != nil {
			b.Fatal(err)
		}
	}
	var times []time.Duration
	for i := 0; b.Loop(); i++ {
		q := translateQueries[i%len(translateQueries)]
		start := time.Now()
		if _, err := Translate(q.query, q.from, q.to, Options{}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns/query")
}

func BenchmarkDetect(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Detect(translateQueries[i%len(translateQueries)].query)
	}
}

func TestTranslateConcurrent(t *testing.T) {
	// The first calls load the tables and build the folded index; run
	// them at once (go test -race) to check that is safe.
	done := make(chan []Term)
	for range 8 {
		go func() {
			terms, _ := Translate("mleko a syr", Czech, English, Options{})
			done <- terms
		}()
	}
	for range 8 {
		if terms := <-done; len(terms) == 0 {
			t.Error("no translation")
		}
	}
}
