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
		{"de", "en", "käse", "cheese"},
		{"en", "de", "cheese", "käse"},
		// Quire's own vocabulary comes before the dictionaries' senses.
		{"it", "en", "importare", "import"},
		{"cs", "en", "zálohovat", "back up"},
		{"es", "en", "comandos", "commands"},
		{"es", "en", "carpeta", "folder"},
		{"it", "en", "cartella", "folder"},
		{"de", "en", "ordner", "folder"},
		{"cs", "en", "poznámky", "notes"},
		{"en", "es", "settings", "ajustes"},
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
	if got := len(Pairs()); got != 8 {
		t.Errorf("Pairs() = %v, want 8 directions", Pairs())
	}
}

// BenchmarkFirstLookup measures what a one-shot search pays for its
// first Czech word: opening the table and one lookup.
func BenchmarkFirstLookup(b *testing.B) {
	for b.Loop() {
		mu.Lock()
		delete(loaded, "cs-en")
		mu.Unlock()
		tab, _ := Load("cs", "en")
		if tab.Lookup("sýr") == nil {
			b.Fatal("sýr not found")
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, text := range []string{"b\tx\na\ty\n", "a\n", "a\t\n", "a\tx\na\ty\n"} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(text))
		zw.Close()
		if _, err := Decode("x", buf.Bytes()); err == nil {
			t.Errorf("Decode(%q): no error", text)
		}
	}
}

// TestTables checks every embedded table (sorted, well formed: lookups
// bisect it) and logs its size and key counts (go test -v), the figures
// README quotes.
func TestTables(t *testing.T) {
	total := 0
	for _, p := range Pairs() {
		from, to, _ := strings.Cut(p, "-")
		tab, err := Load(from, to)
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.Check(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		words, n := 0, 0
		tab.each(func(start int, key string) {
			n++
			if !strings.HasPrefix(key, StemPrefix) {
				words++
			}
			// Every key must be found by bisection, first and last included.
			if n%97 == 1 && tab.find(key) != start {
				t.Errorf("%s: find(%q) = %d, want %d", p, key, tab.find(key), start)
			}
		})
		if words == 0 {
			t.Errorf("%s: no words", p)
		}
		total += Size(from, to)
		t.Logf("%s: %d bytes, %d words, %d stems", p, Size(from, to), words, n-words)
	}
	t.Logf("total: %d bytes", total)
}

func TestFindEdges(t *testing.T) {
	tab := newTable("# header\nb\t1\nd\t2\nf\t3\n")
	for key, want := range map[string]string{"a": "", "b": "1", "c": "", "d": "2", "e": "", "f": "3", "g": "", "": ""} {
		got := strings.Join(tab.Lookup(key), ",")
		if got != want {
			t.Errorf("Lookup(%q) = %q, want %q", key, got, want)
		}
	}
	if n := tab.Len(); n != 3 {
		t.Errorf("Len = %d, want 3", n)
	}
	if got := newTable("# only a header\n").Lookup("a"); got != nil {
		t.Errorf("header-only Lookup = %q", got)
	}
}

func TestLookupFolded(t *testing.T) {
	tab, err := Load("it", "en")
	if err != nil {
		t.Fatal(err)
	}
	fold := NewFolding(func(s string) string { return strings.ReplaceAll(s, "à", "a") })
	want := tab.Lookup("città")
	got := tab.LookupFolded("citta", fold)
	if len(want) == 0 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("LookupFolded(citta) = %q, want %q", got, want)
	}
	if got := tab.LookupFolded("zzz", fold); got != nil {
		t.Errorf("LookupFolded(zzz) = %q, want nil", got)
	}
}
