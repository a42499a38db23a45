package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/server"
)

// Remote is a Backend that asks the sidecar serving the vault, over its
// websocket protocol: while a sidecar runs it holds the index's lock.
type Remote struct {
	c   *server.Client
	pid int
	// Poll is how often Reindex asks whether a full rebuild has finished.
	Poll time.Duration
}

// NewRemote returns a Backend that asks the sidecar connected through c,
// whose process id is pid (for status; 0 if unknown). The caller closes c.
func NewRemote(c *server.Client, pid int) *Remote {
	return &Remote{c: c, pid: pid, Poll: 200 * time.Millisecond}
}

func (r *Remote) via() string {
	if r.pid > 0 {
		return fmt.Sprintf("the running sidecar (pid %d)", r.pid)
	}
	return "the running sidecar"
}

// Status implements Backend.
func (r *Remote) Status(ctx context.Context) (Status, error) {
	st, err := r.c.Status(ctx)
	if err != nil {
		return Status{}, r.wrap(err)
	}
	return r.fromStatus(st), nil
}

func (r *Remote) fromStatus(st proto.StatusResult) Status {
	out := Status{Vault: r.c.Welcome().Vault, Via: r.via(), Notes: st.Notes, Chunks: st.Chunks, Fingerprint: st.Fingerprint.Chunking,
		Indexing: st.Indexing, Languages: st.Languages, Skipped: fromSkipped(st.Skipped), Warnings: fromSkipped(st.Warnings),
		Vectors: newVectors(st.Fingerprint.Embedder, st.Coverage.VectorsDone, st.Coverage.VectorsTotal)}
	if out.Languages == nil {
		out.Languages = map[string]int{}
	}
	if !st.LastIndexed.IsZero() {
		out.LastIndexed = st.LastIndexed.UTC().Format(time.RFC3339)
	}
	return out
}

func fromSkipped(s []proto.SkippedFile) []File {
	out := make([]File, len(s))
	for i, f := range s {
		out[i] = File{Path: f.Path, Reason: f.Reason}
	}
	return out
}

// Reindex implements Backend. The sidecar keeps its index current as files
// change, so an incremental reindex has nothing to start: it reports the
// index as the sidecar holds it. A full one asks the sidecar to rebuild
// and waits until its pass has finished.
func (r *Remote) Reindex(ctx context.Context, full bool) (Reindexed, error) {
	began := time.Now()
	before, err := r.c.Status(ctx)
	if err != nil {
		return Reindexed{}, r.wrap(err)
	}
	after := before
	note := r.via() + " keeps the index current as files change; these are its counts"
	if full {
		var res proto.IndexResult
		if err := r.c.Call(ctx, proto.TypeIndexRebuild, proto.IndexRebuild{}, &res); err != nil {
			return Reindexed{}, r.wrap(err)
		}
		if after, err = r.waitPass(ctx, before.LastIndexed); err != nil {
			return Reindexed{}, err
		}
		note = "rebuilt by " + r.via()
		if after.Coverage.VectorsDone < after.Coverage.VectorsTotal {
			note += fmt.Sprintf("; vectors cover %d of %d passages and are being computed", after.Coverage.VectorsDone, after.Coverage.VectorsTotal)
		}
	}
	out := Reindexed{Full: full, Notes: after.Notes, Chunks: after.Chunks, Skipped: fromSkipped(after.Skipped),
		Warnings: fromSkipped(after.Warnings), Note: note,
		Vectors: newVectors(after.Fingerprint.Embedder, after.Coverage.VectorsDone, after.Coverage.VectorsTotal)}
	if full {
		out.Changed = after.Notes // a rebuild re-reads every note
	}
	out.TookMs = float64(time.Since(began).Microseconds()) / 1000
	return out, nil
}

// waitPass polls status until a pass that finished after since is over.
// The sidecar answers index.rebuild at once and runs the pass in its
// watch loop; polling is simpler than following its events, which a busy
// client may have dropped.
func (r *Remote) waitPass(ctx context.Context, since time.Time) (proto.StatusResult, error) {
	t := time.NewTicker(r.Poll)
	defer t.Stop()
	for {
		st, err := r.c.Status(ctx)
		if err != nil {
			return st, r.wrap(err)
		}
		if !st.Indexing && st.LastIndexed.After(since) {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("rebuild by %s still running: %w", r.via(), ctx.Err())
		case <-t.C:
		}
	}
}

// Search implements Backend.
func (r *Remote) Search(ctx context.Context, query string, k int, channel string) (Found, error) {
	res, err := r.c.Search(ctx, proto.SearchQuery{Query: query, K: k, Channel: proto.Channel(channel)})
	if err != nil {
		return Found{}, r.wrap(err)
	}
	f := Found{Channel: string(res.Channel), Warning: res.Warning, Passages: make([]Passage, len(res.Passages))}
	for i, p := range res.Passages {
		f.Passages[i] = Passage{Path: p.Path, Title: p.Title, HeadingPath: nonNil(p.HeadingPath), Text: p.Text,
			Score: p.Score, Start: p.Start, End: p.End}
	}
	return f, nil
}

// Note implements Backend.
func (r *Remote) Note(ctx context.Context, p string) (string, error) {
	var res proto.NoteResult
	err := r.c.Call(ctx, proto.TypeNoteGet, proto.NoteGet{Path: p}, &res)
	var pe *proto.Error
	if errors.As(err, &pe) && pe.Code == proto.CodeNotFound {
		return "", fmt.Errorf("%w: %s", ErrNotIndexed, pe.Message)
	}
	if err != nil {
		return "", r.wrap(err)
	}
	return res.Text, nil
}

// Ask implements Backend. The answer streams from the sidecar; only the
// checked answer (ask.done) is returned, since a tool result is one reply.
func (r *Remote) Ask(ctx context.Context, question string, k int) (Answer, error) {
	var done proto.AskDone
	err := r.c.Stream(ctx, proto.TypeAskQuery, proto.AskQuery{Question: question, K: k},
		func(proto.Envelope) error { return nil }, &done)
	if err != nil {
		return Answer{}, r.wrap(err)
	}
	return fromAskDone(done), nil
}

// wrap names the sidecar in an error, so that the user knows which
// process to look at.
func (r *Remote) wrap(err error) error {
	var pe *proto.Error
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %s", r.via(), pe.Message)
	}
	return fmt.Errorf("%s: %w", r.via(), err)
}

// fromAskDone maps a checked answer, from the sidecar or from server.AskDone
// in process, to the ask tool's result.
func fromAskDone(d proto.AskDone) Answer {
	a := Answer{Answer: d.Answer, Lang: d.Lang, Grounded: d.Grounded, Refused: d.Refused, Extracted: d.Extracted,
		DroppedCitations: d.DroppedCitations, Channel: string(d.Channel), Model: d.Model, Remote: d.Remote, Warning: d.Warning,
		Citations: make([]Citation, len(d.Citations)), Quotes: make([]Quote, len(d.Quotes))}
	for i, c := range d.Citations {
		a.Citations[i] = Citation{Number: c.Number, Path: c.Path, Title: c.Title, HeadingPath: nonNil(c.HeadingPath),
			Text: c.Text, Start: c.Start, End: c.End}
	}
	for i, q := range d.Quotes {
		a.Quotes[i] = Quote{Number: q.Number, Text: q.Text, Verified: q.Verified}
	}
	return a
}
