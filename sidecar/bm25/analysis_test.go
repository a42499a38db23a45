package bm25

import (
	"context"
	"path/filepath"
	"testing"
)

// TestLanguageAnalyzers checks that a note in each language is found by
// another inflection of its words (its stemmer ran) or, for CJK, by a
// word inside an unbroken run of characters (bigrams), and that accents
// fold after stemming.
func TestLanguageAnalyzers(t *testing.T) {
	tests := []struct {
		lang, body, query string
	}{
		{"de", "Die Einstellungen des Ordners", "Einstellung"},
		{"nl", "Alle instellingen van de mappen", "instelling"},
		{"sv", "Inställningarna för mapparna", "inställning"},
		{"pt", "As configurações das pastas", "configuração"},
		{"fi", "Kansioiden asetukset", "asetuksia"},
		{"ru", "Настройки папок", "настройка"},
		{"tr", "Klasörlerin ayarları", "ayar"},
		{"pl", "Ustawienia folderu", "ustawienia"},
		{"zh", "在设置中打开同步功能", "同步"},
		{"ja", "設定から同期を有効にします", "同期"},
		{"ko", "설정에서 동기화를 켭니다", "동기화를"},
		{"es", "Las carpetas del cajón", "carpeta cajon"},
	}
	for _, tt := range tests {
		x := openWith(t, []Doc{
			{ID: "hit", Path: tt.lang + ".md", Lang: tt.lang, Body: tt.body},
			{ID: "other", Path: "other.md", Lang: "en", Body: "something else entirely"},
		})
		hits, err := x.Search(context.Background(), tt.query, 5)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(hits); len(got) == 0 || got[0] != "hit" {
			t.Errorf("%s: %q in %q: got %v", tt.lang, tt.query, tt.body, got)
		}
	}
}

// TestSearchedFamilies checks that a query searches the fields of the
// languages indexed, including those read back when the index reopens.
func TestSearchedFamilies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bm25")
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Replace(nil, []Doc{{ID: "a", Path: "a.md", Lang: "de", Body: "Ordner"}, {ID: "b", Path: "b.md", Lang: "ja", Body: "同期"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"de", "cjk", generic}
	if got := x.searched(); !equal(got, want) {
		t.Errorf("searched = %v, want %v", got, want)
	}
	x.Close()
	if x, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if got := x.searched(); !equal(got, want) {
		t.Errorf("after reopening: searched = %v, want %v", got, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSearchPrefer checks that a preferred language's passages are
// raised by the factor, found even when another language fills the first
// k, and that other passages keep their scores. The Czech passage wins
// unpreferred: its words are rare among Czech passages, as English
// loanwords are.
func TestSearchPrefer(t *testing.T) {
	docs := []Doc{{ID: "cs", Path: "cs.md", Lang: "cs", Body: "obsidian sync v aplikaci"}}
	for _, id := range []string{"en1", "en2", "en3"} {
		docs = append(docs, Doc{ID: id, Path: id + ".md", Lang: "en", Body: "obsidian sync on a phone " + id})
	}
	x := openWith(t, docs)
	ctx := context.Background()
	plain, err := x.SearchTerms(ctx, "obsidian sync", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(plain); len(got) != 1 || got[0] != "cs" {
		t.Fatalf("without preference: got %v, want the Czech passage first", got)
	}
	all, _ := x.SearchTerms(ctx, "obsidian sync", nil, 4)
	pref, err := x.SearchPrefer(ctx, "obsidian sync", nil, Prefer{Lang: "en", Factor: 10}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(pref) != 1 || pref[0].ID == "cs" {
		t.Fatalf("preferring en with k=1: got %v, want an English passage", ids(pref))
	}
	pref4, _ := x.SearchPrefer(ctx, "obsidian sync", nil, Prefer{Lang: "en", Factor: 10}, 4)
	if len(pref4) != 4 || pref4[3].ID != "cs" {
		t.Fatalf("preferring en: got %v, want the Czech passage last", ids(pref4))
	}
	for _, h := range all {
		for _, p := range pref4 {
			if p.ID != h.ID {
				continue
			}
			want := h.Score
			if h.ID != "cs" {
				want *= 10
			}
			if r := p.Score / want; r < 0.999 || r > 1.001 {
				t.Errorf("%s scored %v preferred, %v not: want %v", h.ID, p.Score, h.Score, want)
			}
		}
	}
	off, _ := x.SearchPrefer(ctx, "obsidian sync", nil, Prefer{Lang: "en", Factor: 1}, 1)
	if !equal(ids(off), ids(plain)) {
		t.Errorf("factor 1: got %v, want %v", ids(off), ids(plain))
	}
}
