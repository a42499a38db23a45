package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// An extracted answer is judged on two kinds of question: answerable ones
// (a gold file: the answer should be given, citing an expected note) and
// unanswerable ones (the vault does not hold the answer: it should be
// refused). Every question's evidence is kept, so one run shows the effect
// of every refusal threshold, not only the one in force.

// Unanswerable is a question the vault does not answer.
type Unanswerable struct {
	Query string `json:"question"`
	Lang  string `json:"lang,omitempty"`
	// Why says why the vault does not hold the answer (for reviewers).
	Why string `json:"why,omitempty"`
}

// LoadUnanswerable reads JSON lines of {"question", "lang"?, "why"?};
// lines starting with // are comments.
func LoadUnanswerable(path string) ([]Unanswerable, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read unanswerable questions: %w", err)
	}
	var out []Unanswerable
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var u Unanswerable
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if strings.TrimSpace(u.Query) == "" {
			return nil, fmt.Errorf("%s:%d: a question is required", path, n)
		}
		out = append(out, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	return out, nil
}

// Answered is what an extracted answer gave for one question, asked with
// no refusal threshold.
type Answered struct {
	// Evidence is the answer's evidence (ask.Answer.Evidence); 0 when no
	// sentence matched, which is a refusal at every threshold.
	Evidence float64
	// Cited are the notes the answer cites; Text is its text.
	Cited []string
	Text  string
}

// Answerer answers a question without a refusal threshold.
type Answerer func(ctx context.Context, question string) (Answered, error)

// AskPoint is the outcome at one refusal threshold.
type AskPoint struct {
	Threshold float64 `json:"threshold"`
	// Answered is the share of answerable questions answered; Right of
	// those answered citing an expected note; Span of those whose answer
	// holds the answer span (most of its words).
	Answered float64 `json:"answered"`
	Right    float64 `json:"answered_right_note"`
	Span     float64 `json:"answered_with_span"`
	// Refused is the share of unanswerable questions refused.
	Refused float64 `json:"unanswerable_refused"`
}

// AskReport is an extracted-answer evaluation.
type AskReport struct {
	Channel      string `json:"channel"`
	Answerable   int    `json:"answerable"`
	Unanswerable int    `json:"unanswerable"`
	// AtThreshold is the outcome at the threshold in force; ByType splits
	// the answerable questions by type at it.
	AtThreshold AskPoint             `json:"at_threshold"`
	ByType      map[string]*AskPoint `json:"by_type"`
	// Sweep is the outcome at thresholds from 0 to 1.
	Sweep []AskPoint `json:"sweep"`
	// Questions lists every question's evidence (with --misses).
	Questions []AskQuestion `json:"questions,omitempty"`
}

// AskQuestion is one question's evidence.
type AskQuestion struct {
	Query      string  `json:"query"`
	Answerable bool    `json:"answerable"`
	Type       string  `json:"type,omitempty"`
	Evidence   float64 `json:"evidence"`
	Right      bool    `json:"right_note,omitempty"`
	Span       bool    `json:"span,omitempty"`
}

type asked struct {
	typ         string
	answerable  bool
	evidence    float64
	right, span bool
}

// Ask asks every question and scores the answers at threshold (the one
// in force) and at a sweep of others.
func Ask(ctx context.Context, answerable []Question, unanswerable []Unanswerable, threshold float64, answer Answerer) (*AskReport, error) {
	var all []asked
	rep := &AskReport{Answerable: len(answerable), Unanswerable: len(unanswerable), ByType: map[string]*AskPoint{}}
	for _, q := range answerable {
		a, err := answer(ctx, q.Query)
		if err != nil {
			return nil, err
		}
		o := asked{typ: q.Type, answerable: true, evidence: a.Evidence, right: citesExpected(q, a.Cited), span: holdsSpan(q, a.Text)}
		all = append(all, o)
		rep.Questions = append(rep.Questions, AskQuestion{Query: q.Query, Answerable: true, Type: q.Type, Evidence: round(a.Evidence), Right: o.right, Span: o.span})
	}
	for _, u := range unanswerable {
		a, err := answer(ctx, u.Query)
		if err != nil {
			return nil, err
		}
		all = append(all, asked{evidence: a.Evidence})
		rep.Questions = append(rep.Questions, AskQuestion{Query: u.Query, Evidence: round(a.Evidence)})
	}
	rep.AtThreshold = askPoint(all, threshold)
	byType := map[string][]asked{}
	for _, o := range all {
		if o.answerable {
			byType[o.typ] = append(byType[o.typ], o)
		}
	}
	for t, os := range byType {
		p := askPoint(os, threshold)
		rep.ByType[t] = &p
	}
	for i := 0; i <= 20; i++ {
		rep.Sweep = append(rep.Sweep, askPoint(all, float64(i)/20))
	}
	return rep, nil
}

// askPoint scores the questions at threshold t: a question is answered
// when some sentence matched and its evidence reaches t.
func askPoint(all []asked, t float64) AskPoint {
	p := AskPoint{Threshold: t}
	var na, nu float64
	for _, o := range all {
		answered := o.evidence > 0 && o.evidence >= t-1e-9
		if !o.answerable {
			nu++
			if !answered {
				p.Refused++
			}
			continue
		}
		na++
		if answered {
			p.Answered++
			if o.right {
				p.Right++
			}
			if o.span {
				p.Span++
			}
		}
	}
	if na > 0 {
		p.Answered, p.Right, p.Span = round(p.Answered/na), round(p.Right/na), round(p.Span/na)
	}
	if nu > 0 {
		p.Refused = round(p.Refused / nu)
	}
	return p
}

func citesExpected(q Question, cited []string) bool {
	for _, c := range cited {
		for _, e := range q.Expected {
			if c == e {
				return true
			}
		}
	}
	return false
}

// holdsSpan reports whether the answer text holds at least half of some
// answer span's words (spans are long; an extracted sentence is often
// part of one, or the span part of it).
func holdsSpan(q Question, text string) bool {
	have := map[string]bool{}
	for _, w := range strings.Fields(Normalize(text)) {
		have[strings.Trim(w, ".,;:!?()[]\"'*`")] = true
	}
	for _, s := range q.Spans {
		words := strings.Fields(Normalize(s.Text))
		n := 0
		for _, w := range words {
			if have[strings.Trim(w, ".,;:!?()[]\"'*`")] {
				n++
			}
		}
		if len(words) > 0 && float64(n) >= math.Ceil(float64(len(words))/2) {
			return true
		}
	}
	return false
}
