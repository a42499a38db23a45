package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/vault"
)

// The tools' results are the MCP edge of the engine's domain values:
// this file maps one to the other, as the server does for the plugin.

func toStatus(st engine.Status, via string) Status {
	out := Status{Vault: st.Vault, Via: via, Notes: st.Notes, Chunks: st.Chunks, Fingerprint: st.Fingerprint, Indexing: st.Indexing,
		Languages: st.Languages, Skipped: files(st.Skipped), Warnings: files(st.Warnings), Vectors: toVectors(st.Vectors)}
	if p := st.Embedding; p != nil && out.Vectors != nil && p.PerSecond > 0 {
		out.Vectors.PerSecond, out.Vectors.SecondsLeft = p.PerSecond, p.Left.Seconds()
	}
	if out.Languages == nil {
		out.Languages = map[string]int{}
	}
	if !st.LastIndexed.IsZero() {
		out.LastIndexed = st.LastIndexed.UTC().Format(time.RFC3339)
	}
	return out
}

func toVectors(ds index.DenseStats) *Vectors {
	return newVectors(ds.Embedder, ds.Embedded, ds.Passages)
}

func files(skips []vault.Skip) []File {
	out := make([]File, len(skips))
	for i, s := range skips {
		out[i] = File{Path: s.Path, Reason: s.Reason}
	}
	return out
}

func toReindexed(r engine.Reindexed) Reindexed {
	out := Reindexed{Full: r.Full, Notes: r.Stats.Notes, Chunks: r.Stats.Chunks, Changed: r.Stats.Changed, Removed: r.Stats.Removed,
		Skipped: files(r.Stats.Skipped), Warnings: files(r.Stats.Warnings), Vectors: toVectors(r.Vectors), Note: r.Note,
		TookMs: float64(r.Took.Microseconds()) / 1000}
	var notes []string
	if r.Note != "" {
		notes = append(notes, r.Note)
	}
	if r.VectorsErr != nil {
		// Keywords are current; vectors catch up on the next pass.
		notes = append(notes, "vectors are not up to date: "+r.VectorsErr.Error())
	} else if v := r.Vectors; v.Embedder != "" && v.Embedded < v.Passages {
		notes = append(notes, fmt.Sprintf("vectors cover %d of %d passages and are being computed", v.Embedded, v.Passages))
	}
	out.Note = strings.Join(notes, "; ")
	return out
}

func toPassage(p search.Passage) Passage {
	src, rel := source.Split(p.Path)
	return Passage{Source: src, Path: rel, Title: p.Title, Headings: nonNil(p.Headings), Text: p.Text, Score: p.Score,
		Start: p.Start, End: p.End, Page: p.Page}
}

func toAnswer(a ask.Answer) Answer {
	out := Answer{Answer: a.Text, Lang: string(a.Lang), Grounded: a.Grounded, Refused: a.Refused, Extracted: a.Extracted,
		DroppedCitations: a.Dropped, Channel: string(a.Channel), Model: a.Model, Remote: a.Remote, Warning: strings.Join(a.Warnings, "; "),
		Citations: make([]Citation, len(a.Citations)), Quotes: make([]Quote, len(a.Quotes))}
	for i, c := range a.Citations {
		src, rel := source.Split(c.Path)
		out.Citations[i] = Citation{Number: c.N, Source: src, Path: rel, Title: c.Title, Headings: nonNil(c.Headings),
			Text: c.Text, Start: c.Start, End: c.End, Page: c.Page}
	}
	for i, q := range a.Quotes {
		out.Quotes[i] = Quote{Number: q.N, Text: q.Text, Verified: q.Verified}
	}
	return out
}

// notifier sends notifications/progress for one call whose request
// carried a progressToken; without one it sends nothing. It sends what
// the engine reports (the index thins it), its value only growing, as
// the protocol wants: notes indexed, then passages embedded on top.
type notifier struct {
	ctx   context.Context
	ss    *sdk.ServerSession
	token any

	mu         sync.Mutex
	indexTotal int
	last       float64
	sent       bool // a notification has gone out
}

func newNotifier(ctx context.Context, req *sdk.CallToolRequest) *notifier {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return &notifier{ctx: ctx, ss: req.Session, token: token}
}

// progress follows an engine pass.
func (n *notifier) progress(p engine.Progress) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var value, total float64
	var msg string
	switch p.Phase {
	case engine.PhaseScan:
		msg = "comparing the vault with the index"
	case engine.PhaseIndex:
		n.indexTotal = max(n.indexTotal, p.Total)
		value, total = float64(p.Done), float64(p.Total)
		msg = fmt.Sprintf("indexing: %d/%d notes", p.Done, p.Total)
	case engine.PhaseEmbed:
		value, total = float64(n.indexTotal+p.Done), float64(n.indexTotal+p.Total)
		msg = fmt.Sprintf("vectors: %d/%d passages", p.Done, p.Total)
		if p.PerSecond > 0 {
			msg += fmt.Sprintf(", %.1f a second, about %s left", p.PerSecond, p.Left.Round(time.Second))
		}
	}
	// The protocol wants every notification's value above the last one's:
	// a new message at the same value waits for the value to move.
	if n.sent && value <= n.last {
		return
	}
	n.last, n.sent = value, true
	n.send(value, total, msg)
}

// say sends a message as one more step, total unknown.
func (n *notifier) say(msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last++
	n.sent = true
	n.send(n.last, 0, msg)
}

func (n *notifier) send(value, total float64, msg string) {
	// A client that cannot take a notification does not stop the work.
	_ = n.ss.NotifyProgress(n.ctx, &sdk.ProgressNotificationParams{ProgressToken: n.token, Progress: value, Total: total, Message: msg})
}
