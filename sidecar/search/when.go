package search

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// When is what a query says about time: that it asks about the state now
// ("What laptop do I use now?"), or about a span of days ("last week",
// "in March 2024", "2024-03"), in the five languages Quire translates.
type When struct {
	// Current is set when the query asks how things are now: the newest
	// of equally matching notes comes first (see dateOrder).
	Current bool `json:"current,omitempty"`
	// From and To bound the days asked about, [From, To), in local time;
	// zero when the query names none. Notes dated inside come first.
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
	// Phrase is the query's words that named the span, as written; they
	// are not searched as words.
	Phrase string `json:"phrase,omitempty"`
}

// Span reports whether the query names a span of days.
func (w When) Span() bool { return !w.From.IsZero() }

// currentWords are the words and phrases that ask about the state now.
var currentWords = phrases(
	// English
	"now", "current", "currently", "latest", "still", "anymore", "any more", "these days", "nowadays", "at the moment", "at present",
	// Czech
	"teď", "ted", "nyní", "aktuální", "aktuálně", "současný", "současná", "současné", "momentálně", "stále", "pořád", "nejnovější", "už ne",
	// Italian
	"ora", "adesso", "attuale", "attualmente", "ancora", "oggigiorno", "al momento", "non più", "più recente",
	// Spanish
	"ahora", "actual", "actualmente", "todavía", "aún", "hoy en día", "ya no", "más reciente",
	// German
	"jetzt", "aktuell", "aktuelle", "derzeit", "momentan", "zurzeit", "noch", "immer noch", "nicht mehr", "neueste",
)

type relative int

const (
	today relative = iota
	yesterday
	thisWeek
	lastWeek
	thisMonth
	lastMonth
	thisYear
	lastYear
)

// relativeWords name spans counted back from today.
var relativeWords = map[relative][][]string{
	today:     phrases("today", "dnes", "dneska", "oggi", "hoy", "heute"),
	yesterday: phrases("yesterday", "včera", "ieri", "ayer", "gestern"),
	thisWeek:  phrases("this week", "tento týden", "tomto týdnu", "tohoto týdne", "questa settimana", "esta semana", "diese woche", "dieser woche", "diesen woche"),
	lastWeek: phrases("last week", "past week", "previous week", "minulý týden", "minulém týdnu", "minulého týdne", "settimana scorsa", "scorsa settimana", "semana pasada",
		"letzte woche", "letzten woche", "letzter woche", "vergangene woche", "vergangenen woche", "vorige woche", "vorigen woche"),
	thisMonth: phrases("this month", "tento měsíc", "tomto měsíci", "tohoto měsíce", "questo mese", "este mes", "diesen monat", "diesem monat"),
	lastMonth: phrases("last month", "past month", "previous month", "minulý měsíc", "minulém měsíci", "minulého měsíce", "mese scorso", "scorso mese", "mes pasado",
		"letzten monat", "letzter monat", "vergangenen monat", "vorigen monat"),
	thisYear: phrases("this year", "letos", "tento rok", "tomto roce", "tohoto roku", "quest'anno", "questo anno", "este año", "dieses jahr", "diesem jahr"),
	lastYear: phrases("last year", "past year", "previous year", "loni", "vloni", "minulý rok", "minulém roce", "minulého roku", "anno scorso", "l'anno scorso", "scorso anno", "año pasado",
		"letztes jahr", "letzten jahr", "vergangenes jahr", "vergangenen jahr", "voriges jahr", "vorigen jahr"),
}

// monthNames maps a month's name, in each language and the cases Czech
// uses after a preposition, to its number.
var monthNames = func() map[string]time.Month {
	m := map[string]time.Month{}
	for i, names := range [12]string{
		"january gennaio enero januar leden ledna lednu",
		"february febbraio febrero februar únor února únoru",
		"march marzo märz maerz březen března březnu",
		"april aprile abril duben dubna dubnu",
		"may maggio mayo mai květen května květnu",
		"june giugno junio juni červen června červnu",
		"july luglio julio juli červenec července červenci",
		"august agosto srpen srpna srpnu",
		"september settembre septiembre setiembre září",
		"october ottobre octubre oktober říjen října říjnu",
		"november novembre noviembre listopad listopadu",
		"december dicembre diciembre dezember prosinec prosince prosinci",
	} {
		for _, n := range strings.Fields(names) {
			m[n] = time.Month(i + 1)
		}
	}
	return m
}()

// monthPrepositions may stand before a month named without its year ("in
// March", "a marzo", "im März", "v březnu"): alone, "may" and "march" are
// too often other words.
var monthPrepositions = map[string]bool{"in": true, "during": true, "since": true, "a": true, "di": true, "en": true, "de": true, "im": true, "v": true, "ve": true, "od": true}

// yearPrepositions may stand before a year named alone ("in 2024", "nel
// 2024", "im Jahr 2024", "v roce 2024"): a bare number is too often a
// version, a count or a price.
var yearPrepositions = phrases("in", "during", "since", "nel", "del", "en", "im jahr", "v roce", "roku")

func phrases(ps ...string) [][]string {
	out := make([][]string, len(ps))
	for i, p := range ps {
		out[i] = strings.Fields(p)
	}
	return out
}

// word is one word of a query and where it is.
type word struct {
	text       string // lower case
	start, end int    // byte offsets in the query
}

func queryWords(q string) []word {
	var ws []word
	start := -1
	for i, r := range q + " " {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' && start >= 0 || r == '\'' && start >= 0
		if in && start < 0 {
			start = i
		} else if !in && start >= 0 {
			text := strings.TrimRight(q[start:i], "-'")
			ws = append(ws, word{strings.ToLower(text), start, start + len(text)})
			start = -1
		}
	}
	return ws
}

// at reports whether phrase p starts at word i of ws.
func at(ws []word, i int, p []string) bool {
	if i+len(p) > len(ws) {
		return false
	}
	for j, w := range p {
		if ws[i+j].text != w {
			return false
		}
	}
	return true
}

// ReadWhen reads what query says about time, with now as today; a text
// longer than a question (MaxQuestionWords) says nothing.
func ReadWhen(query string, now time.Time) When {
	ws := queryWords(query)
	var w When
	if len(ws) > MaxQuestionWords {
		return w // a note's text, not a question
	}
	for i := range ws {
		for _, p := range currentWords {
			if at(ws, i, p) {
				w.Current = true
			}
		}
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	set := func(from, to time.Time, i, n int) {
		w.From, w.To = from, to
		w.Phrase = query[ws[i].start:ws[i+n-1].end]
	}
	for i := 0; i < len(ws) && !w.Span(); i++ {
		for r, ps := range relativeWords {
			for _, p := range ps {
				if at(ws, i, p) {
					from, to := relativeSpan(r, day)
					set(from, to, i, len(p))
				}
			}
		}
		if w.Span() {
			break
		}
		if from, to, n, ok := namedSpan(ws, i, day); ok {
			set(from, to, i, n)
		}
	}
	return w
}

func relativeSpan(r relative, day time.Time) (time.Time, time.Time) {
	monday := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	month := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, day.Location())
	year := time.Date(day.Year(), 1, 1, 0, 0, 0, 0, day.Location())
	switch r {
	case today:
		return day, day.AddDate(0, 0, 1)
	case yesterday:
		return day.AddDate(0, 0, -1), day
	case thisWeek:
		return monday, monday.AddDate(0, 0, 7)
	case lastWeek:
		return monday.AddDate(0, 0, -7), monday
	case thisMonth:
		return month, month.AddDate(0, 1, 0)
	case lastMonth:
		return month.AddDate(0, -1, 0), month
	case thisYear:
		return year, year.AddDate(1, 0, 0)
	default: // lastYear
		return year.AddDate(-1, 0, 0), year
	}
}

// namedSpan reads a span named outright at word i: 2024-03-10, 2024-03,
// "March 2024", "10 March 2024", "in March" (the last March up to today),
// "in 2024". It returns the span and how many words named it.
func namedSpan(ws []word, i int, day time.Time) (time.Time, time.Time, int, bool) {
	loc := day.Location()
	w := ws[i].text
	if t, err := time.ParseInLocation("2006-01-02", w, loc); err == nil {
		return t, t.AddDate(0, 0, 1), 1, true
	}
	if t, err := time.ParseInLocation("2006-01", w, loc); err == nil {
		return t, t.AddDate(0, 1, 0), 1, true
	}
	if m, ok := monthNames[w]; ok {
		if i+1 < len(ws) {
			if y, ok := year(ws[i+1].text); ok {
				t := time.Date(y, m, 1, 0, 0, 0, 0, loc)
				return t, t.AddDate(0, 1, 0), 2, true
			}
		}
		if i > 0 && monthPrepositions[ws[i-1].text] {
			y := day.Year()
			if m > day.Month() {
				y--
			}
			t := time.Date(y, m, 1, 0, 0, 0, 0, loc)
			return t, t.AddDate(0, 1, 0), 1, true
		}
	}
	for _, p := range yearPrepositions {
		if at(ws, i, p) && i+len(p) < len(ws) {
			if y, ok := year(ws[i+len(p)].text); ok {
				t := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
				return t, t.AddDate(1, 0, 0), len(p) + 1, true
			}
		}
	}
	return time.Time{}, time.Time{}, 0, false
}

// year reads a four-digit year from 1900 to 2199.
func year(s string) (int, bool) {
	if len(s) != 4 {
		return 0, false
	}
	y, err := strconv.Atoi(s)
	return y, err == nil && y >= 1900 && y < 2200
}

// dateOrder reorders the pool's notes for a question about time; each
// note's first passage moves, its others stay where they ranked.
//
//   - A span ("last week"): the notes dated inside it that hold any of
//     the query's other words come first, in their order.
//   - The state now ("still", "currently"): a note changed on a later day
//     than one ranked above it, holding at least as much of the query's
//     words (idf-weighted, over its passages in the pool), goes above it.
//     Of two versions of a page the newer one answers; an old note that
//     matches better keeps its place.
//
// Nothing is weighed against the ranking: the order changes only where
// the question's own words about time decide between notes that match
// alike, and a vault without dates (every note changed on one day, as a
// fresh copy) keeps its order.
func (s *Searcher) dateOrder(ctx context.Context, t Terms, cs []Candidate) []Candidate {
	w := t.When
	if s.DateOf == nil || !w.Current && !w.Span() {
		return cs
	}
	type note struct {
		lead           int // the index of its first passage in cs
		cov            float64
		updated, dated int // days, as yyyymmdd
		inSpan         bool
	}
	var notes []note
	first := map[string]int{}
	for i, c := range cs {
		if _, ok := first[c.Path]; !ok {
			first[c.Path] = len(notes)
			notes = append(notes, note{lead: i})
		}
	}
	if len(notes) < 2 {
		return cs
	}
	q := s.concepts(ctx, t)
	held := make([]uint64, len(notes))
	for _, c := range cs {
		held[first[c.Path]] |= q.match(c.Text).held | q.match(c.Title+"\n"+c.Breadcrumb()).held
	}
	for j := range notes {
		n := &notes[j]
		up, dated := s.DateOf(cs[n.lead].Path)
		n.cov, n.updated = q.share(held[j]), dayOf(up)
		if dated.IsZero() {
			dated = up
		}
		n.dated = dayOf(dated)
		n.inSpan = !dated.IsZero() && !dated.Before(w.From) && dated.Before(w.To)
	}
	order := notes
	if w.Span() {
		var in, out []note
		for _, n := range notes {
			if n.inSpan && n.cov > 0 {
				in = append(in, n)
			} else {
				out = append(out, n)
			}
		}
		order = append(in, out...)
	}
	if w.Current {
		placed := make([]note, 0, len(order))
		for _, n := range order {
			at := len(placed)
			for j, m := range placed {
				if n.updated > m.updated && n.cov >= m.cov && n.inSpan == m.inSpan {
					at = j
					break
				}
			}
			placed = slices.Insert(placed, at, n)
		}
		order = placed
	}
	out := slices.Clone(cs)
	for j, n := range order {
		out[notes[j].lead] = cs[n.lead]
	}
	return out
}

// dayOf is t's day as yyyymmdd in local time, 0 for the zero time.
func dayOf(t time.Time) int {
	if t.IsZero() {
		return 0
	}
	t = t.Local()
	return t.Year()*10000 + int(t.Month())*100 + t.Day()
}
