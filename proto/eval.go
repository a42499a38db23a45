package proto

import "encoding/json"

// Eval message types.
const (
	TypeEvalRun    = "eval.run"
	TypeEvalResult = "eval.result"
)

// EvalRun asks the sidecar to score the user's own questions on its index
// as it is (the plugin's Evaluate search view), on every channel it
// serves: bm25, and dense and hybrid once vectors exist. Each channel's
// run is appended to the state folder's evals.jsonl under the name
// "view" and the set; nothing in the vault is written.
type EvalRun struct {
	// Questions are the set, at most 1,000.
	Questions []EvalQuestion `json:"questions"`
	// Set names the questions in the eval log: the vault path of the
	// file that keeps them.
	Set string `json:"set,omitempty"`
	// K is the cut-off for recall (default 5, at most 50).
	K int `json:"k,omitempty"`
}

// EvalQuestion is one question of a user's set, as a line of a JSON-lines
// gold file has it.
type EvalQuestion struct {
	Question string `json:"question"`
	// Expected are the notes that answer it, vault-relative; the first is
	// the one the answer's words are looked for in.
	Expected []string `json:"expected"`
	// Answer, optional, is the words of the answer as the note has them:
	// with it the question is found only by a passage holding them whole.
	Answer string `json:"answer,omitempty"`
	// Type groups questions in the figures ("untyped" when empty).
	Type string `json:"type,omitempty"`
}

// EvalResult answers an eval.run.
type EvalResult struct {
	K int `json:"k"`
	// Channels are the scores per channel, in order; the last (hybrid
	// when there are vectors) is the one the pictures' bars and ranks read.
	Channels []EvalChannel `json:"channels"`
	// Pictures are the eval report's pictures of this run, drawn by the
	// engine, against the previous run of the same questions when there
	// is one.
	Pictures EvalPictures `json:"pictures"`
	// Control is when the previous run of these questions was made
	// (RFC 3339), absent when there is none.
	Control string `json:"control,omitempty"`
	// Warnings name questions whose note the index does not hold, and say
	// when vectors cover only part of the vault.
	Warnings []string `json:"warnings"`
}

// EvalChannel is one channel's scores.
type EvalChannel struct {
	Channel string `json:"channel"`
	// SpanRecallAtK is the share of questions whose answer (the answer's
	// words, else the note) is among the first k passages.
	SpanRecallAtK float64 `json:"spanRecallAtK"`
	SpanMRR       float64 `json:"spanMRR"`
	// NoteRecallAtK is the share whose note is among the first k notes.
	NoteRecallAtK float64 `json:"noteRecallAtK"`
	// RecallAt50 is the share found anywhere in the pool of 50 passages.
	RecallAt50 float64 `json:"recallAt50"`
	// Reachable counts questions whose answer lies whole inside some
	// passage of the index.
	Reachable     int     `json:"reachable"`
	MedianQueryMS float64 `json:"medianQueryMs"`
	// ByType is span recall@k per question type, by type name.
	ByType []EvalType `json:"byType"`
	// Ranks are every question's outcome, in the set's order.
	Ranks []EvalRank `json:"ranks"`
}

// EvalType is one question type's span recall@k.
type EvalType struct {
	Type          string  `json:"type"`
	N             int     `json:"n"`
	SpanRecallAtK float64 `json:"spanRecallAtK"`
}

// EvalRank is the rank one question's answer reached.
type EvalRank struct {
	Question string `json:"question"`
	Type     string `json:"type"`
	Expected string `json:"expected"`
	// Rank is the answer's passage rank, 0 when it is not in the pool of 50.
	Rank int `json:"rank"`
	// NoteRank is the note's rank among distinct notes, 0 when absent.
	NoteRank int `json:"noteRank"`
	// Reachable is false when no passage holds the answer's words whole.
	Reachable bool `json:"reachable"`
}

// EvalPictures are three SVG documents, as the eval report embeds them:
// recall at k from 1 to 50 per channel, span recall by question type, and
// the rank of each question's answer. Any text in them is escaped; a
// client that shows them should still rebuild them from known elements
// and attributes rather than insert the markup.
type EvalPictures struct {
	Recall string `json:"recall"`
	Types  string `json:"types"`
	Ranks  string `json:"ranks"`
}

// MarshalJSON encodes Questions as [] when nil (see arrays.go).
func (r EvalRun) MarshalJSON() ([]byte, error) {
	type plain EvalRun
	if r.Questions == nil {
		r.Questions = []EvalQuestion{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes Expected as [] when nil.
func (q EvalQuestion) MarshalJSON() ([]byte, error) {
	type plain EvalQuestion
	if q.Expected == nil {
		q.Expected = []string{}
	}
	return json.Marshal(plain(q))
}

// MarshalJSON encodes Channels and Warnings as [] when nil.
func (r EvalResult) MarshalJSON() ([]byte, error) {
	type plain EvalResult
	if r.Channels == nil {
		r.Channels = []EvalChannel{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes ByType and Ranks as [] when nil.
func (c EvalChannel) MarshalJSON() ([]byte, error) {
	type plain EvalChannel
	if c.ByType == nil {
		c.ByType = []EvalType{}
	}
	if c.Ranks == nil {
		c.Ranks = []EvalRank{}
	}
	return json.Marshal(plain(c))
}
