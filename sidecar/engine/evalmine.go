package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/search"
)

// MaxEvalQuestions bounds a set scored by EvalMine: each question is a
// search per channel, all within one request.
const MaxEvalQuestions = 1000

// MineName is the name EvalMine's runs carry in the eval log.
const MineName = "view"

// MineEval is a user's set scored on every channel the index serves,
// against the previous run of the same questions.
type MineEval struct {
	// Runs are one per channel: bm25, then dense and hybrid when vectors
	// exist. Each is logged to <state>/evals.jsonl.
	Runs []*eval.Report
	// Control are the previous run's entries, one per channel it had,
	// none when these questions were not scored before.
	Control []*eval.LogEntry
	// Pictures are drawn by eval.Draw, as the eval report draws them.
	Pictures eval.Pictures
	// Warnings name questions whose note the index does not hold and say
	// when vectors cover only part of the vault.
	Warnings []string
}

// EvalMine scores a user's own questions (the plugin's Evaluate search
// view) on the index as it is, on every channel it serves, logs each
// run under set and compares it with the previous run of the same
// questions. Nothing of the vault is written.
func (e *Engine) EvalMine(ctx context.Context, set string, mine []eval.Mine, k int) (*MineEval, error) {
	if len(mine) > MaxEvalQuestions {
		return nil, errorf(TooLarge, "%d questions: at most %d in one run", len(mine), MaxEvalQuestions)
	}
	if k <= 0 {
		k = 5
	}
	if k > eval.Pool {
		return nil, errorf(Invalid, "k %d: at most %d", k, eval.Pool)
	}
	qs := make([]eval.Question, len(mine))
	for i, m := range mine {
		if len(m.Question) > MaxQuery {
			return nil, errorf(TooLarge, "question %d: over %d bytes", i+1, MaxQuery)
		}
		qs[i] = m.Gold()
	}
	if err := eval.Check(qs); err != nil {
		return nil, errorf(Invalid, "%v", err)
	}
	snap := e.snap.Load()
	out := &MineEval{}
	for i, q := range qs {
		if _, ok := snap.notes.entry(q.Expected[0]); !ok {
			out.Warnings = append(out.Warnings, fmt.Sprintf("question %d: %s is not in the index", i+1, q.Expected[0]))
		}
	}
	chans := []search.Channel{search.BM25}
	if d := snap.dense; d.Embedded > 0 {
		chans = append(chans, search.Dense, search.Hybrid)
		if d.Embedded < d.Passages {
			out.Warnings = append(out.Warnings, fmt.Sprintf("vectors cover %d of %d passages", d.Embedded, d.Passages))
		}
	}
	hash := questionsHash(qs, k)
	if set == "" {
		set = "questions"
	}
	var log []eval.LogEntry
	if path := e.evalLog(); path != "" {
		var err error
		if log, err = eval.ReadLog(path); err != nil {
			out.Warnings = append(out.Warnings, err.Error())
		}
	}
	out.Control = previous(log, set, hash)
	var runs []*eval.LogEntry
	for _, ch := range chans {
		rep, logErr, err := e.Eval(ctx, EvalRun{Name: MineName, Set: set, Gold: set, Hash: hash, Questions: qs, K: k, Channel: ch})
		if err != nil {
			return nil, err
		}
		if logErr != nil {
			out.Warnings = append(out.Warnings, logErr.Error())
		}
		out.Runs = append(out.Runs, rep)
		runs = append(runs, &eval.LogEntry{Name: "now", Report: rep})
	}
	ctl := make([]*eval.LogEntry, len(out.Control))
	for i, c := range out.Control {
		ctl[i] = &eval.LogEntry{Name: "before", Report: c.Report}
	}
	out.Pictures = eval.Draw(set, runs, ctl)
	return out, nil
}

// questionsHash names a set of questions and its k in the log: runs are
// compared only on the same questions, scored at the same depth.
func questionsHash(qs []eval.Question, k int) string {
	data, _ := json.Marshal(struct {
		K         int             `json:"k"`
		Questions []eval.Question `json:"questions"`
	}{k, qs}) // plain strings and ints: Marshal cannot fail
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// previous is the newest earlier run of EvalMine on these questions: its
// entry on each channel, in channel order.
func previous(log []eval.LogEntry, set, hash string) []*eval.LogEntry {
	var out []*eval.LogEntry
	for _, ch := range []search.Channel{search.BM25, search.Dense, search.Hybrid} {
		for i := len(log) - 1; i >= 0; i-- {
			l := &log[i]
			if l.Name == MineName && l.Set == set && l.GoldHash == hash && l.Report.Channel == string(ch) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}
