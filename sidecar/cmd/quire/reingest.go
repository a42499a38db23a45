package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/quire-app/quire/sidecar/engine"
)

// cmdReingest rebuilds the source notes written in an older layout from
// their originals (engine.Reingest), in this process: it holds the vault,
// so a running sidecar (Obsidian) must be closed first. Run again, it goes
// on where a stopped run left off. It exits 1 when a note could not be
// rebuilt.
func cmdReingest(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("reingest", &c)
	dry := fs.Bool("dry-run", false, "only list what would be rebuilt, sent to review or left")
	pos, err := parse(fs, &c, args)
	if err != nil {
		return err
	}
	notes := make([]string, len(pos))
	for i, p := range pos {
		if notes[i], err = vaultRel(c.vault, p); err != nil {
			return usageErr("reingest: %v", err)
		}
	}
	if err := needFree(ctx, c, "reingest"); err != nil {
		return err
	}
	e, err := open(c, false, nil)
	if err != nil {
		return err
	}
	defer closeEngine(e)
	if !*dry {
		// Related pages and link checks come from an index that is up to date.
		if _, err := e.Update(ctx); err != nil {
			return err
		}
		if err := e.EnableDense(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "quire: warning: search by meaning is off:", shown(err.Error()))
		}
	}
	each := func(r engine.Rebuilt) {
		if c.json {
			return
		}
		line := r.Action + "  " + shown(r.Note)
		if r.Review != "" {
			line += " → " + shown(r.Review)
		}
		if r.Reason != "" {
			line += " (" + shown(r.Reason) + ")"
		}
		fmt.Println(line)
	}
	res, err := e.Reingest(ctx, notes, *dry, each)
	if err != nil {
		return err
	}
	if c.json {
		if err := printJSON(res); err != nil {
			return err
		}
	}
	left := 0
	for _, r := range res {
		if r.Action == "failed" || r.Action == "kept" {
			left++
		}
	}
	if !c.json {
		fmt.Printf("%d source note(s) in an older layout than %d", len(res), engine.NoteFormat)
		if !*dry {
			fmt.Printf(", %d not rebuilt", left)
		}
		fmt.Println(".")
	}
	if left > 0 && !*dry {
		return &exitError{code: 1, err: fmt.Errorf("reingest: %d note(s) not rebuilt", left)}
	}
	return nil
}

// vaultRel turns a note given on the command line (vault-relative, or a
// path to a file inside the vault) into its vault-relative path.
func vaultRel(vaultDir, p string) (string, error) {
	if filepath.IsAbs(p) || strings.HasPrefix(p, ".") {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		root, err := filepath.Abs(vaultDir)
		if err != nil {
			return "", err
		}
		if p, err = filepath.Rel(root, abs); err != nil || !filepath.IsLocal(p) {
			return "", fmt.Errorf("%s is not inside the vault", abs)
		}
	}
	p = filepath.ToSlash(p)
	if !strings.HasSuffix(p, ".md") {
		p += ".md"
	}
	return p, nil
}

// needFree refuses a command that works the vault in this process while a
// sidecar serves it, saying what to do instead of naming a lock.
func needFree(ctx context.Context, c common, cmd string) error {
	r := attach(ctx, c)
	if r == nil {
		return nil
	}
	defer r.close()
	return fmt.Errorf("%s: the sidecar (pid %d) serves this vault: close Obsidian (or stop quire serve) and run quire %s again", cmd, r.cf.PID, cmd)
}
