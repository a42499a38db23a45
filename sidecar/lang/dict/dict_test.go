package dict

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		from, to, key, want string
	}{
		{"it", "en", "formaggio", "cheese"},
		{"es", "en", "queso", "cheese"},
		{"cs", "en", "sýr", "cheese"},
		{"en", "it", "cheese", "formaggio"},
		{"en", "es", "cheese", "queso"},
		{"en", "cs", "cheese", "sýr"},
	}
	for _, tt := range tests {
		tab, err := Load(tt.from, tt.to)
		if err != nil {
			t.Fatal(err)
		}
		got := tab.Lookup(tt.key)
		if len(got) == 0 || got[0] != tt.want {
			t.Errorf("%s-%s %q = %q, want %q first", tt.from, tt.to, tt.key, got, tt.want)
		}
	}
}

func TestLoadMissing(t *testing.T) {
	tab, err := Load("xx", "en")
	if tab != nil || err != nil {
		t.Errorf("Load(xx, en) = %v, %v; want nil, nil", tab, err)
	}
	if got := tab.Lookup("a"); got != nil {
		t.Errorf("nil table Lookup = %q", got)
	}
}

func TestPairs(t *testing.T) {
	if got := len(Pairs()); got != 6 {
		t.Errorf("Pairs() = %v, want 6 directions", Pairs())
	}
}

func BenchmarkLoadCzech(b *testing.B) {
	gz, _ := files.ReadFile("cs-en.tsv.gz")
	for b.Loop() {
		if _, err := decode("cs", "en", gz); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, text := range []string{"b\tx\na\ty\n", "a\n", "a\t\n"} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(text))
		zw.Close()
		if _, err := decode("x", "y", buf.Bytes()); err == nil {
			t.Errorf("decode(%q): no error", text)
		}
	}
}

// TestSizes logs each table's embedded size and key counts (go test -v),
// the figures README quotes.
func TestSizes(t *testing.T) {
	total := 0
	for _, p := range Pairs() {
		from, to, _ := strings.Cut(p, "-")
		tab, err := Load(from, to)
		if err != nil {
			t.Fatal(err)
		}
		words := 0
		for i := range tab.lines {
			if !strings.HasPrefix(tab.key(i), StemPrefix) {
				words++
			}
		}
		if words == 0 {
			t.Errorf("%s: no words", p)
		}
		total += Size(from, to)
		t.Logf("%s: %d bytes gzipped, %d bytes decoded, %d words, %d stems", p, Size(from, to), len(tab.text), words, tab.Len()-words)
	}
	t.Logf("total: %d bytes gzipped", total)
}

func TestLookupFolded(t *testing.T) {
	tab, err := Load("it", "en")
	if err != nil {
		t.Fatal(err)
	}
	fold := func(s string) string { return strings.ReplaceAll(s, "à", "a") }
	want := tab.Lookup("città")
	got := tab.LookupFolded("citta", fold)
	if len(want) == 0 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("LookupFolded(citta) = %q, want %q", got, want)
	}
	if got := tab.LookupFolded("zzz", fold); got != nil {
		t.Errorf("LookupFolded(zzz) = %q, want nil", got)
	}
}
