// Package raw keeps the originals of ingested sources (the fetched HTML, the
// PDF, the clip) in a vault folder, by default Quire/raw, so a source note
// can always be checked against, or rebuilt from, exactly what was read.
//
// An original is never overwritten and never half written: Save writes a
// hidden temporary file in the folder, syncs it, and then hard-links it to
// its final name, which fails instead of replacing when the name is taken
// (another source, or a second Save racing this one); the next free name
// (report-2.pdf, report-3.pdf, …) is tried instead. Every file operation
// goes through an os.Root opened on the vault, so neither a hostile file
// name nor a symbolic link can make Save write outside the folder.
package raw

import (
	"github.com/quire-app/quire/sidecar/vault"

	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Folder is the vault folder for originals when the configuration names
// no other.
const Folder = "Quire/raw"

// MaxNameBytes caps the length of a saved file name, suffix included. File
// systems allow 255 bytes; the margin leaves room for sync tools that add
// their own suffixes (" (conflicted copy 2024-…)").
const MaxNameBytes = 120

// maxTries bounds the search for a free name; reaching it means something
// is wrong with the folder, not that the user has that many copies.
const maxTries = 10000

// ErrFolder is returned when the folder is not a relative path inside the
// vault.
var ErrFolder = errors.New("folder must be a relative path inside the vault")

// tempPrefix marks files being written. The leading dot hides them from
// Obsidian and from the vault walker, so a crash mid-write leaves nothing
// the user sees.
const tempPrefix = ".quire-tmp-"

// write copies data into the temporary file; tests replace it to fail
// half way.
var write = func(w io.Writer, data []byte) error {
	_, err := w.Write(data)
	return err
}

// Save writes data as a new file in folder (relative to vaultDir, created if
// missing) under a safe form of name (see SafeName), or under the first free
// name after it, and returns the vault-relative path with forward slashes,
// e.g. "Quire/raw/report-2.pdf".
func Save(vaultDir, folder, name string, data []byte) (string, error) {
	rel, err := save(vaultDir, folder, name, data)
	if err != nil {
		return "", fmt.Errorf("save original %s: %w", name, err)
	}
	return rel, nil
}

func save(vaultDir, folder, name string, data []byte) (string, error) {
	folder = filepath.Clean(filepath.FromSlash(folder))
	if !filepath.IsLocal(folder) || folder == "." {
		return "", fmt.Errorf("%w: %q", ErrFolder, folder)
	}
	vault, err := os.OpenRoot(vaultDir)
	if err != nil {
		return "", err
	}
	defer vault.Close()
	if err := vault.MkdirAll(folder, 0o755); err != nil {
		return "", err
	}
	dir, err := vault.OpenRoot(folder)
	if err != nil {
		return "", err
	}
	defer dir.Close()

	tmp, err := writeTemp(dir, data)
	if err != nil {
		return "", err
	}
	// Whatever happens below, the temporary name goes: after a successful
	// link the data lives on under the final name.
	defer dir.Remove(tmp)

	stem, ext := splitExt(SafeName(name))
	for i := 1; i <= maxTries; i++ {
		final := candidate(stem, ext, i)
		err := dir.Link(tmp, final)
		if err == nil {
			syncDir(dir)
			return path.Join(filepath.ToSlash(folder), final), nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// Some file systems (FAT, some network shares) have no hard links.
		// Fall back to check-then-rename: the window between the two is
		// the only place a racing writer could be overwritten.
		if _, serr := dir.Lstat(final); serr == nil {
			continue
		} else if !errors.Is(serr, fs.ErrNotExist) {
			return "", serr
		}
		if err := dir.Rename(tmp, final); err != nil {
			return "", err
		}
		syncDir(dir)
		return path.Join(filepath.ToSlash(folder), final), nil
	}
	return "", fmt.Errorf("no free name for %s%s after %d tries", stem, ext, maxTries)
}

// writeTemp writes data to a new hidden file in dir and syncs it, so that
// once it is linked to its final name, a power cut cannot leave that name
// pointing at a short file.
func writeTemp(dir *os.Root, data []byte) (string, error) {
	var rnd [8]byte
	rand.Read(rnd[:])
	name := tempPrefix + hex.EncodeToString(rnd[:])
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	err = write(f, data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		dir.Remove(name)
		return "", err
	}
	return name, nil
}

// syncDir makes the new directory entry durable. Errors are ignored: some
// platforms cannot sync a directory, and the file itself is already safe.
func syncDir(dir *os.Root) {
	if d, err := dir.Open("."); err == nil {
		d.Sync()
		d.Close()
	}
}

func candidate(stem, ext string, i int) string {
	if i == 1 {
		return stem + ext
	}
	suffix := "-" + strconv.Itoa(i)
	return truncate(stem, MaxNameBytes-len(ext)-len(suffix)) + suffix + ext
}

// SafeName turns any string into a file name that is valid and harmless on
// Linux, macOS and Windows (vaults are synced between them): no path
// separators, no "..", no control or invisible formatting characters (a
// right-to-left override could disguise "fdp.exe" as "exe.pdf"), none of
// the characters Windows forbids, no leading dot (a hidden file), no
// trailing dot or space, no reserved device name (CON, NUL, COM1…), at
// most MaxNameBytes bytes with the extension kept. An empty result becomes
// "source".
func SafeName(name string) string {
	name = norm.NFC.String(name)
	var b strings.Builder
	dash := false
	for _, r := range name {
		switch {
		case r == utf8.RuneError:
			continue
		case strings.ContainsRune(`/\:*?"<>|`, r), unicode.IsSpace(r) && r != ' ':
			r = '-'
		case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r):
			continue
		}
		if r == '-' {
			if dash {
				continue
			}
			dash = true
		} else {
			dash = false
		}
		b.WriteRune(r)
	}
	stem, ext := splitExt(b.String())
	stem = strings.Trim(stem, " .-")
	if stem == "" {
		stem = "source"
	}
	if reserved(stem) {
		stem += "_"
	}
	return truncate(stem, MaxNameBytes-len(ext)) + ext
}

// splitExt splits off a short alphanumeric extension, lowercased; anything
// else after the last dot stays part of the stem.
func splitExt(name string) (stem, ext string) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || len(name)-i > 11 || i == len(name)-1 {
		return name, ""
	}
	for _, r := range name[i+1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return name, ""
		}
	}
	return name[:i], strings.ToLower(name[i:])
}

// reserved reports whether Windows treats the stem as a device name. It
// does so whatever follows the first dot, so "con.tar" is as bad as "con".
func reserved(stem string) bool { return vault.Reserved(stem) }

// truncate cuts s to at most n bytes on a rune boundary and trims what
// would be a bad ending.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	t := strings.TrimRight(s[:n], " .-")
	if t == "" {
		return "source"
	}
	return t
}
