// Package eval measures retrieval the way users feel it: gold questions,
// span and note hits, and a run log.
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Question is one gold question.
type Question struct {
	// ID names a question of second-brain-evals' questions.json.
	ID       string   `json:"id,omitempty"`
	Query    string   `json:"query"`
	Lang     string   `json:"query_lang,omitempty"`
	Type     string   `json:"type,omitempty"`
	Expected []string `json:"expected_notes"`
	Spans    []Span   `json:"answer_spans,omitempty"`
	// GoldFiles marks a question of questions.json: Expected are the
	// files that carry the fact, and it is scored by that protocol (a
	// gold file among the notes of the top k passages), not by spans.
	GoldFiles bool `json:"-"`
}

// brainQuestion is one entry of second-brain-evals' questions.json.
// Terms, the protocol's ripgrep alternation, is not read: Quire searches
// with the question as a user would type it.
type brainQuestion struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Question string   `json:"question"`
	Gold     []string `json:"gold"`
}

// loadArray reads a JSON array of questions: second-brain-evals'
// questions.json when its first record has "gold", else the benchmark's
// format.
func loadArray(path string, data []byte) ([]Question, error) {
	var probe []map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var qs []Question
	if len(probe) == 0 || probe[0]["gold"] == nil {
		if err := json.Unmarshal(data, &qs); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return qs, nil
	}
	var bqs []brainQuestion
	if err := json.Unmarshal(data, &bqs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, b := range bqs {
		if probe[i]["gold"] == nil {
			return nil, fmt.Errorf("%s: question %d: no gold files, though question 1 has them (one format per file)", path, i+1)
		}
		qs = append(qs, Question{ID: b.ID, Query: b.Question, Type: b.Type, Expected: b.Gold, GoldFiles: true})
	}
	return qs, nil
}

// Span is a verbatim answer inside a note.
type Span struct {
	Note string `json:"note"`
	Text string `json:"text"`
}

// userLine is the simpler JSON-lines format for users' own sets.
type userLine struct {
	Question string   `json:"question"`
	Query    string   `json:"query"`
	Expected []string `json:"expected"`
	Notes    []string `json:"expected_notes"`
	Answer   string   `json:"answer"`
	Span     string   `json:"span"`
	Type     string   `json:"type"`
}

// Load reads a gold file: a JSON array in the benchmark's format or in
// second-brain-evals' questions.json format ({id, type, question, terms,
// gold}, told apart by "gold"), or JSON lines of {question, expected,
// answer?, type?}.
func Load(path string) ([]Question, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read gold file: %w", err)
	}
	trimmed := bytes.TrimSpace(data)
	var qs []Question
	if bytes.HasPrefix(trimmed, []byte("[")) {
		if qs, err = loadArray(path, trimmed); err != nil {
			return nil, err
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "//") {
				continue
			}
			var u userLine
			if err := json.Unmarshal([]byte(line), &u); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			q := u.Question
			if q == "" {
				q = u.Query
			}
			span := u.Answer
			if span == "" {
				span = u.Span
			}
			qs = append(qs, Mine{Question: q, Expected: append(u.Expected, u.Notes...), Answer: span, Type: u.Type}.Gold())
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := Check(qs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, nil
}

// Mine is a question of a user's own set: a JSON line of a gold file, or
// one written in the plugin's Evaluate search view.
type Mine struct {
	Question string
	// Expected are the notes that answer it, vault-relative.
	Expected []string
	// Answer, optional, is the words of the answer in the first note.
	Answer string
	Type   string
}

// Gold is the question as eval scores it: its answer a span of the
// first expected note.
func (m Mine) Gold() Question {
	q := Question{Query: m.Question, Type: m.Type, Expected: m.Expected}
	if m.Answer != "" && len(m.Expected) > 0 {
		q.Spans = []Span{{Note: m.Expected[0], Text: m.Answer}}
	}
	return q
}

// Check refuses a set with no question, or a question with no words or
// no expected note, and names an untyped question's type "untyped".
func Check(qs []Question) error {
	for i, q := range qs {
		if strings.TrimSpace(q.Query) == "" || len(q.Expected) == 0 {
			return fmt.Errorf("question %d: needs a query and at least one expected note", i+1)
		}
		if qs[i].Type == "" {
			qs[i].Type = "untyped"
		}
	}
	if len(qs) == 0 {
		return errors.New("no questions")
	}
	return nil
}
