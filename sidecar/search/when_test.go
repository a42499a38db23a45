package search

import (
	"testing"
	"time"
)

func TestReadWhen(t *testing.T) {
	now := time.Date(2026, 12, 3, 15, 0, 0, 0, time.Local) // a Thursday
	cases := []struct {
		q, span, phrase string
		current         bool
	}{
		{"What happened with the boiler last week?", "2026-11-23..2026-11-30", "last week", false},
		{"Co jsem dělal minulý týden?", "2026-11-23..2026-11-30", "minulý týden", false},
		{"Cosa ho fatto la settimana scorsa?", "2026-11-23..2026-11-30", "settimana scorsa", false},
		{"¿Qué pasó la semana pasada?", "2026-11-23..2026-11-30", "semana pasada", false},
		{"Was war letzte Woche?", "2026-11-23..2026-11-30", "letzte Woche", false},
		{"notes from yesterday", "2026-12-02..2026-12-03", "yesterday", false},
		{"What did I write this year?", "2026-01-01..2027-01-01", "this year", false},
		{"trips in March 2024", "2024-03-01..2024-04-01", "March 2024", false},
		{"výlety v březnu", "2026-03-01..2026-04-01", "březnu", false},
		{"Weihnachtsmarkt im Dezember", "2026-12-01..2027-01-01", "Dezember", false},
		{"meeting on 2024-03-10", "2024-03-10..2024-03-11", "2024-03-10", false},
		{"budget 2024-03", "2024-03-01..2024-04-01", "2024-03", false},
		{"what did we decide in 2023", "2023-01-01..2024-01-01", "in 2023", false},
		{"What laptop do I use now?", "", "", true},
		{"Is Firefox still my browser?", "", "", true},
		{"Qual è l'editor attuale?", "", "", true},
		{"Was ist jetzt mein Browser?", "", "", true},
		{"may I embed a PDF", "", "", false},
		{"version 2024 of the spec", "", "", false},
		{"How do I march the army?", "", "", false},
	}
	for _, c := range cases {
		w := ReadWhen(c.q, now)
		span := ""
		if w.Span() {
			span = w.From.Format("2006-01-02") + ".." + w.To.Format("2006-01-02")
		}
		if span != c.span || w.Phrase != c.phrase || w.Current != c.current {
			t.Errorf("ReadWhen(%q) = span %q phrase %q current %v; want %q %q %v", c.q, span, w.Phrase, w.Current, c.span, c.phrase, c.current)
		}
	}
}
