package compile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/quire-app/quire/sidecar/vault"
)

// Ownership of the generated folder. Quire writes only files it created,
// so it must not adopt a folder full of the user's notes (config folder:
// "Kitchen"): there it would move Inbox/ files, append to a log.md and
// drop raw/ from the index. A folder is Quire's when it does not exist,
// holds nothing outside Inbox/ (a fresh folder the user dropped sources
// into), or is Quire's by proof (owned).

// ForeignError is returned for a generated folder that holds files Quire
// did not write and no page of Quire's; Paths names some of them.
type ForeignError struct {
	Folder string
	Paths  []string // vault-relative, at most maxForeign
	More   bool     // more than Paths
}

func (e *ForeignError) Error() string {
	more := ""
	if e.More {
		more = ", …"
	}
	return fmt.Sprintf("folder %q holds files Quire did not write (%s%s): choose an empty or new folder for Quire's notes",
		e.Folder, strings.Join(e.Paths, ", "), more)
}

const maxForeign = 5

// CheckOwned returns a *ForeignError when the generated folder rel in the
// vault is not Quire's (see above), nil when it is or does not exist.
func CheckOwned(vaultDir, rel string) error {
	rel = strings.Trim(filepath.ToSlash(rel), "/")
	root := filepath.Join(vaultDir, filepath.FromSlash(rel))
	st, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("folder %q is not a folder", rel)
	}
	if owned(root) {
		return nil
	}
	fe := &ForeignError{Folder: rel}
	stop := errors.New("enough")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if p != root && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		r, _ := filepath.Rel(root, p)
		r = filepath.ToSlash(r)
		if d.IsDir() {
			if r == InboxFolder {
				return filepath.SkipDir // sources dropped for Quire
			}
			return nil
		}
		if len(fe.Paths) == maxForeign {
			fe.More = true
			return stop
		}
		fe.Paths = append(fe.Paths, path.Join(rel, r))
		return nil
	})
	if err != nil && err != stop {
		return err
	}
	if len(fe.Paths) == 0 {
		return nil
	}
	return fe
}

// InboxFolder is, under the generated folder, where the user drops files
// to ingest.
const InboxFolder = "Inbox"

// OwnerFile marks a generated folder Quire adopted; the dot hides it from
// Obsidian and from the index.
const OwnerFile = ".quire-folder"

// Adopt checks that the generated folder rel is Quire's (CheckOwned) and
// marks it so, creating it when missing; the worker adopts the folder
// before it saves an original or moves an inbox file, so that the files
// it puts there count as Quire's.
func Adopt(vaultDir, rel string) error {
	if err := CheckOwned(vaultDir, rel); err != nil {
		return err
	}
	dir, err := openFolder(vaultDir, rel)
	if err != nil {
		return err
	}
	defer dir.close()
	dir.sweep()
	if _, err := dir.root.Lstat(OwnerFile); err == nil {
		return nil
	}
	err = dir.write(OwnerFile, []byte("Quire writes its notes in this folder. Keep this file while it does.\n"), false)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// sweep removes the temporary files a killed process left in the
// folders the compiler and raw.Save write (hidden, but litter; one may be a hard link
// of a finished note). Adopt runs before the worker's next item, when no
// write of the worker is under way, and a write of this package (lint's)
// holds writing until its rename; Answers/ is left alone, since an
// answer may be saved meanwhile.
func (f *folder) sweep() {
	writing.Lock()
	defer writing.Unlock()
	dirs := []string{".", "Sources", "Concepts", "Entities", "Review", "raw", "attachments"}
	if d, err := f.root.Open("attachments"); err == nil {
		subs, _ := d.Readdirnames(-1)
		d.Close()
		for _, s := range subs {
			dirs = append(dirs, filepath.Join("attachments", s))
		}
	}
	for _, dir := range dirs {
		d, err := f.root.Open(dir)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			if strings.HasPrefix(n, tempPrefix) {
				f.root.Remove(filepath.Join(dir, n))
			}
		}
	}
}

// owned reports whether the folder is Quire's by proof: its own record
// (OwnerFile, which Adopt writes), or a page whose quire_hash matches its
// bytes (ours). A note that only says so (quire: generated or answer,
// which any note can say, and a saved answer carries no hash) proves
// nothing: one such note moved into a folder of the user's must not
// make Quire adopt it and work the user's files there.
func owned(root string) bool {
	if st, err := os.Lstat(filepath.Join(root, OwnerFile)); err == nil && st.Mode().IsRegular() {
		return true
	}
	for _, n := range []string{"index.md", "log.md"} {
		if b, err := vault.ReadFile(root, n, 1<<20); err == nil {
			if _, sealed := ours(b); sealed {
				return true
			}
		}
	}
	for _, dir := range []string{"Sources", "Concepts", "Entities"} {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			continue
		}
		for i, e := range ents {
			if i == 50 {
				break
			}
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			b, err := vault.ReadFile(root, dir+"/"+e.Name(), 1<<20)
			if err != nil {
				continue
			}
			if _, sealed := ours(b); sealed {
				return true
			}
		}
	}
	return false
}
