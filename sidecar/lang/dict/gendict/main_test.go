package main

import (
	"reflect"
	"testing"
)

func TestParseEntry(t *testing.T) {
	tests := []struct {
		text string
		want entry
	}{
		{"cinta /θˈinta/\n1. bond, tie\n2. connection, league\n3. ribbon\n",
			entry{"cinta", "", [][]string{{"bond", "tie"}, {"connection", "league"}, {"ribbon"}}}},
		{"approach <v>\nobrátit se na\n         Note: koho\n",
			entry{"approach", "v", [][]string{{"obrátit se na"}}}},
		{"house\n [hud] house (styl hudby)\n\n",
			entry{"house", "", [][]string{{"house"}}}},
		{"suoceri /sʊˈɔːtʃerɪ/\nparents‐in‐law\n",
			entry{"suoceri", "", [][]string{{"parents-in-law"}}}},
		{"Rusia /rˈusja/\nRussia\n", entry{"rusia", "", [][]string{{"russia"}}}},
		{"for /fˈɔː/\n... ago, how are you?\n", entry{"for", "", [][]string{{"ago", "how are you"}}}},
	}
	for _, tt := range tests {
		got, ok := parseEntry(tt.text)
		if !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseEntry(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
		}
	}
	if _, ok := parseEntry("lonely\n\n"); ok {
		t.Error("an article without translations was kept")
	}
}

func TestGlued(t *testing.T) {
	vocab := map[string]bool{"next": true, "to": true, "across": true, "from": true, "sunflower": true, "sun": true, "flower": true}
	tests := []struct {
		w    string
		want bool
	}{
		{"nextto", true}, {"acrossfrom", true}, {"sunflower", false}, {"next", false}, {"zebra", false},
	}
	for _, tt := range tests {
		if got := glued(tt.w, vocab); got != tt.want {
			t.Errorf("glued(%q) = %v, want %v", tt.w, got, tt.want)
		}
	}
}

func TestB64(t *testing.T) {
	for s, want := range map[string]int{"A": 0, "B": 1, "BA": 64, "gIf": 32*64*64 + 8*64 + 31} {
		if got := b64(s); got != want {
			t.Errorf("b64(%q) = %d, want %d", s, got, want)
		}
	}
}
