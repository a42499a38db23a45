package dict

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .pack files from the .tsv files")

// TestPacked checks that every embedded table is its .tsv, packed: the
// whole text, block by block, with the blocks' first keys and offsets
// right. With -update it rewrites the .pack files first (scripts/gen-dict
// does).
func TestPacked(t *testing.T) {
	for name, s := range tables {
		tsv, err := os.ReadFile(name + ".tsv")
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			packed, err := Pack(string(tsv))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name+".pack", packed, 0o644); err != nil {
				t.Fatal(err)
			}
			*s = string(packed)
		}
		tab := openPacked(name, *s)
		var got strings.Builder
		got.WriteString(tab.head)
		for _, b := range tab.blocks {
			if b.off != got.Len() {
				t.Errorf("%s: block at %d, want %d", name, b.off, got.Len())
			}
			b.load()
			if k := keyOf(b.text[:strings.IndexByte(b.text, '\n')]); k != b.first {
				t.Errorf("%s: block at %d first key %q, index says %q", name, b.off, k, b.first)
			}
			got.WriteString(b.text)
		}
		if got.String() != string(tsv) {
			t.Errorf("%s.pack does not decode to %s.tsv (%d bytes, want %d): go test ./lang/dict -run TestPacked -update", name, name, got.Len(), len(tsv))
		}
		if tab.size != len(tsv) {
			t.Errorf("%s: size %d, want %d", name, tab.size, len(tsv))
		}
	}
}

func TestPackRoundTrip(t *testing.T) {
	for _, text := range []string{
		"",
		"# only a header\n",
		"# h\na\t1\nab\t2\nabc\t3\nb\t4\n",
		"a\tno header\n~a\tstem\n",
	} {
		packed, err := Pack(text)
		if err != nil {
			t.Fatal(err)
		}
		tab := openPacked("x", string(packed))
		var got strings.Builder
		got.WriteString(tab.head)
		for _, b := range tab.blocks {
			b.load()
			got.WriteString(b.text)
		}
		if got.String() != text {
			t.Errorf("Pack(%q) decodes to %q", text, got.String())
		}
	}
	if _, err := Pack("a\t1"); err == nil {
		t.Error("Pack without a final newline: no error")
	}
}

// BenchmarkInflateTable measures reading a whole packed table (Keys,
// Len), which LookupFolded once did on first use to index the unaccented
// keys.
func BenchmarkInflateTable(b *testing.B) {
	for b.Loop() {
		tab := openPacked("cs-en", csEn)
		n := 0
		tab.each(func(int, string) { n++ })
		if n == 0 {
			b.Fatal("no keys")
		}
	}
}
