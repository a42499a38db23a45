package lang

import "testing"

func TestStemCzechGroups(t *testing.T) {
	// Each group is one lemma's inflected forms; all must share a stem.
	groups := [][]string{
		{"hrad", "hradu", "hradem", "hradech", "hrady", "hradům", "hradě"},
		{"žena", "ženy", "ženě", "ženou", "žen", "ženám", "ženách", "ženami"},
		{"město", "města", "městu", "městem", "městech", "městům", "městy"},
		{"ruka", "ruky", "ruce", "rukou"},
		{"kniha", "knihy", "knize", "knihou", "knihami", "knihách"},
		{"řeka", "řeky", "řece", "řekou", "řekami"},
		{"most", "mostu", "mostem", "mosty", "mostech"},
		{"stroj", "stroje", "strojem", "strojů", "strojích"},
		{"kolo", "kola", "kolem", "kolech"},
		{"pražský", "pražského", "pražském", "pražskému", "pražských"},
		// A verb and its verbal noun.
		{"zálohovat", "zálohování", "zálohováním", "zálohováních"},
		{"nastavit", "nastavení", "nastavením", "nastaveních"},
		{"hledat", "hledání", "hledáním"},
		{"importovat", "importování", "import", "importu"},
	}
	for _, g := range groups {
		want := Stem(Czech, g[0])
		for _, w := range g[1:] {
			if got := Stem(Czech, w); got != want {
				t.Errorf("Stem(cs, %q) = %q, want %q (the stem of %q)", w, got, want, g[0])
			}
		}
	}
}

func TestStemCzech(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hradech", "hrad"},
		{"ženou", "žen"},
		{"ruce", "ruk"},
		{"knize", "knih"},
		{"městem", "měst"},
		{"kuřaty", "kuř"},
		{"dům", "dům"}, // too short to lose anything
		{"a", "a"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Stem(Czech, tt.in); got != tt.want {
			t.Errorf("Stem(cs, %q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStemSnowball(t *testing.T) {
	tests := []struct {
		l        Lang
		in, want string
	}{
		{English, "running", "run"},
		{English, "cheeses", "chees"},
		{Italian, "biciclette", "biciclett"},
		{Italian, "città", "citt"},
		{Italian, "funzionamento", "funzion"},
		{Spanish, "bicicletas", "biciclet"},
		{Spanish, "canciones", "cancion"},
		{German, "häuser", "haus"},
		{French, "chevaux", "cheval"},
		{Unknown, "running", "running"},
	}
	for _, tt := range tests {
		if got := Stem(tt.l, tt.in); got != tt.want {
			t.Errorf("Stem(%s, %q) = %q, want %q", tt.l, tt.in, got, tt.want)
		}
	}
}

func BenchmarkStem(b *testing.B) {
	words := []struct {
		l Lang
		w string
	}{{English, "translations"}, {Italian, "biciclette"}, {Spanish, "canciones"}, {Czech, "pražského"}}
	for i := 0; b.Loop(); i++ {
		w := words[i%len(words)]
		Stem(w.l, w.w)
	}
}
