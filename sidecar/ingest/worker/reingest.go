package worker

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/vault"
)

// What Reingest did, or would do, with one note (Rebuilt.Action).
const (
	ActionRebuild = "rebuild" // dry run: would be rebuilt
	ActionRebuilt = "rebuilt" // rebuilt in the current layout
	ActionReview  = "review"  // the user edited it: its new version is (or would go) in review
	ActionKept    = "kept"    // not rebuilt (no model, or it failed): left as it was
	ActionFailed  = "failed"  // cannot be rebuilt: no original, or it cannot be read
)

// Rebuilt is what Reingest did with one source note.
type Rebuilt struct {
	Note   string `json:"note"`             // vault-relative
	Title  string `json:"title"`            // kept
	Format int    `json:"format"`           // the layout it had
	Action string `json:"action"`           // one of the Action* constants
	Review string `json:"review,omitempty"` // the review item of an edited note
	Reason string `json:"reason,omitempty"` // why kept or failed
}

// Reingest rebuilds the source notes written in an older layout than
// compile.Format from their originals in <Folder>/raw (compile.Source
// Rebuild): all of them, or those of notes (vault-relative paths). each
// is told of every note as it is done; with dry, nothing is written and
// each is told what would happen. A note that cannot be rebuilt is
// reported and the run goes on. The note's own layout version is the
// mark of a rebuild done, so a run stopped anywhere is resumed by running
// it again. Run it while the worker does not run (the queue's items
// write the same pages).
func (w *Worker) Reingest(ctx context.Context, notes []string, dry bool, each func(Rebuilt)) ([]Rebuilt, error) {
	folder := w.folder()
	outdated, err := compile.ListOutdated(w.opts.Vault, folder)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		if !slices.ContainsFunc(outdated, func(o compile.Outdated) bool { return o.Note == n }) {
			return nil, fmt.Errorf("reingest %s: not a source note of %s in an older layout than %d", n, folder, compile.Format)
		}
	}
	out := []Rebuilt{}
	for _, o := range outdated {
		if len(notes) > 0 && !slices.Contains(notes, o.Note) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r := w.rebuild(ctx, folder, o, dry)
		if ctx.Err() != nil && r.Action == ActionFailed {
			return out, ctx.Err()
		}
		out = append(out, r)
		if each != nil {
			each(r)
		}
	}
	return out, nil
}

// rebuild rebuilds one note, or says what it would do.
func (w *Worker) rebuild(ctx context.Context, folder string, o compile.Outdated, dry bool) Rebuilt {
	r := Rebuilt{Note: o.Note, Title: o.Title, Format: o.Format, Action: ActionRebuild}
	if o.Edited {
		r.Action, r.Review = ActionReview, o.Review
		if regular(w.opts.Vault, o.Review) {
			return r // an earlier run put it there
		}
	}
	fail := func(reason string) Rebuilt {
		r.Action, r.Review, r.Reason = ActionFailed, "", reason
		return r
	}
	// Only from raw/: the note is the user's to edit, and a raw: naming
	// any other file must not have Quire read it to the model.
	if o.Raw == "" || !strings.HasPrefix(o.Raw, path.Join(folder, "raw")+"/") {
		return fail("its original is not in " + path.Join(folder, "raw") + "/, so it cannot be rebuilt")
	}
	if !regular(w.opts.Vault, o.Raw) {
		return fail("its original " + o.Raw + " is missing, so it cannot be rebuilt")
	}
	if dry {
		return r
	}
	start := time.Now()
	data, err := vault.ReadFile(w.opts.Vault, o.Raw, w.opts.MaxBytes)
	if err != nil {
		return fail("read " + o.Raw + ": " + err.Error())
	}
	doc, err := extract.Any(ctx, data, path.Base(o.Raw), "", o.URL)
	if err != nil {
		return fail(err.Error())
	}
	if err := w.saveFigures(doc, path.Join(folder, "attachments", extract.Slug(path.Base(o.Raw)))); err != nil {
		return fail(err.Error())
	}
	opt := w.compileOptions()
	opt.Vault, opt.Folder = w.opts.Vault, folder
	if w.opts.MaxCalls > 0 {
		opt.MaxCalls = w.opts.MaxCalls
	}
	cctx, progress, release := untilWriting(ctx, func(ingest.Step, int, int) {})
	defer release()
	opt.Progress = progress
	res, err := w.compile(cctx, compile.Source{Doc: doc, Origin: o.Origin, Raw: o.Raw, Captured: o.Captured, Rebuild: o.Note}, opt)
	defer func() {
		run := runOf("reingest", o.Origin, res, res.Model, start)
		run.Note, run.Outcome = o.Note, r.Action
		if r.Reason != "" {
			run.Stop = r.Reason
		}
		w.logRun(run)
	}()
	switch {
	case err != nil:
		return fail(err.Error())
	case res.Kept:
		r.Action, r.Review, r.Reason = ActionKept, "", res.Reason
	case !o.Edited:
		r.Action = ActionRebuilt
	}
	return r
}

// regular reports whether the vault-relative rel is a regular file of the
// vault (not a link).
func regular(vaultDir, rel string) bool {
	p := filepath.FromSlash(rel)
	if !filepath.IsLocal(p) {
		return false
	}
	st, err := os.Lstat(filepath.Join(vaultDir, p))
	return err == nil && st.Mode().IsRegular()
}
