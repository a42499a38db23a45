package index

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/vault"
)

// Entry is what the catalog remembers about one indexed note.
type Entry struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime"` // unix nanoseconds
	Hash    string `json:"hash"`
	Chunks  int    `json:"chunks"`
	Title   string `json:"title"`
	Lang    string `json:"lang"`
	Warning string `json:"warning,omitempty"`
	// Superseded says another note replaces this one; SupersededBy is the
	// link to it as written ("Plan v2"), when the note names it.
	Superseded   bool   `json:"superseded,omitempty"`
	SupersededBy string `json:"supersededBy,omitempty"`
	// Private is the note's private mark (vault.Note.Private).
	Private bool `json:"private,omitempty"`
	// Updated is when the note last changed and Dated the day it is
	// about, in unix seconds (0: not known); see dating.stamp.
	Updated int64 `json:"updated,omitempty"`
	Dated   int64 `json:"dated,omitempty"`
	// Lines counts the lines of content of the note's body and LinkLines
	// those that lead with a link (markdown.LinkLines): what tells a map
	// of content from a leaf.
	LinkLines int `json:"linkLines,omitempty"`
	Lines     int `json:"lines,omitempty"`
}

// Meta is the catalog's record of the last run.
type Meta struct {
	Fingerprint string       `json:"fingerprint"`
	LastIndex   time.Time    `json:"lastIndex"`
	Skipped     []vault.Skip `json:"skipped"`
}

var (
	filesBucket   = []byte("files")
	sourcesBucket = []byte("sources")
	metaBucket    = []byte("meta")
	metaKey       = []byte("meta")
)

// catalog is the bbolt file <state>/catalog: per note, its size, mtime,
// hash and chunk count. It is written after the keyword index, so a crash
// between the two only makes the next run redo the affected notes. The
// file is the truth; the notes are read from it once, at open, and kept
// in memory, changed only after a write to the file succeeded, so that a
// pass costs what it changes, not a read of every record.
type catalog struct {
	db    *bolt.DB
	mu    sync.RWMutex // guards files
	files map[string]Entry
}

func openCatalog(path string) (*catalog, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	c := &catalog{db: db, files: map[string]Entry{}}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{filesBucket, metaBucket, sourcesBucket} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return tx.Bucket(filesBucket).ForEach(func(k, v []byte) error {
			e, err := decodeEntry(v)
			if err != nil {
				return fmt.Errorf("catalog entry %s: %w", k, err)
			}
			c.files[string(k)] = e
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("init catalog %s: %w", path, err)
	}
	return c, nil
}

func (c *catalog) close() error { return c.db.Close() }

// entries returns a copy of the notes, which the caller may keep.
func (c *catalog) entries() map[string]Entry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return maps.Clone(c.files)
}

// entriesOf returns a copy of the notes of the source id.
func (c *catalog) entriesOf(id string) map[string]Entry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := map[string]Entry{}
	for k, e := range c.files {
		if sid, _ := source.Split(k); sid == id {
			out[k] = e
		}
	}
	return out
}

// countOf returns how many notes the source id has.
func (c *catalog) countOf(id string) int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := 0
	for k := range c.files {
		if sid, _ := source.Split(k); sid == id {
			n++
		}
	}
	return n
}

// get returns one note's entry.
func (c *catalog) get(p string) (Entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.files[p]
	return e, ok
}

// read calls f with the notes, which f must neither keep nor change.
func (c *catalog) read(f func(map[string]Entry)) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	f(c.files)
}

// apply writes entries (nil deletes) in one transaction.
func (c *catalog) apply(changes map[string]*Entry) error {
	if len(changes) == 0 {
		return nil
	}
	err := c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(filesBucket)
		for p, e := range changes {
			if e == nil {
				if err := b.Delete([]byte(p)); err != nil {
					return err
				}
				continue
			}
			if err := b.Put([]byte(p), encodeEntry(e)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, e := range changes {
		if e == nil {
			delete(c.files, p)
		} else {
			c.files[p] = *e
		}
	}
	return nil
}

func (c *catalog) clear() error {
	err := c.db.Update(func(tx *bolt.Tx) error {
		// The sources' revisions go with their notes: the next sync reads
		// each source whole.
		for _, b := range [][]byte{filesBucket, sourcesBucket} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files = map[string]Entry{}
	return nil
}

func (c *catalog) meta() (Meta, error) {
	var m Meta
	err := c.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(metaBucket).Get(metaKey); v != nil {
			return json.Unmarshal(v, &m)
		}
		return nil
	})
	return m, err
}

func (c *catalog) setMeta(m Meta) error {
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return c.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(metaBucket).Put(metaKey, v) })
}

// entryV1 starts an entry in the catalog's binary form: varints and
// length-prefixed strings in Entry's field order. A field added to Entry
// is appended to both encodeEntry and decodeEntry; a record written
// before it ends early and decodes with the field's zero value. Catalogs
// written before the binary form hold JSON, which starts with '{' and is
// still read, so an existing index needs no rebuild: each record is
// rewritten in the binary form when its note next changes.
const entryV1 = 1

const (
	flagSuperseded = 1 << iota
	flagPrivate
)

func encodeEntry(e *Entry) []byte {
	b := make([]byte, 0, 40+len(e.Hash)+len(e.Title)+len(e.Lang)+len(e.Warning)+len(e.SupersededBy))
	b = append(b, entryV1)
	b = binary.AppendVarint(b, e.Size)
	b = binary.AppendVarint(b, e.ModTime)
	b = appendString(b, e.Hash)
	b = binary.AppendUvarint(b, uint64(e.Chunks))
	b = appendString(b, e.Title)
	b = appendString(b, e.Lang)
	b = appendString(b, e.Warning)
	var flags uint64
	if e.Superseded {
		flags |= flagSuperseded
	}
	if e.Private {
		flags |= flagPrivate
	}
	b = binary.AppendUvarint(b, flags)
	b = appendString(b, e.SupersededBy)
	b = binary.AppendVarint(b, e.Updated)
	b = binary.AppendVarint(b, e.Dated)
	b = binary.AppendUvarint(b, uint64(e.LinkLines))
	b = binary.AppendUvarint(b, uint64(e.Lines))
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errShortEntry = errors.New("truncated record")

func decodeEntry(v []byte) (Entry, error) {
	var e Entry
	if len(v) > 0 && v[0] == '{' {
		err := json.Unmarshal(v, &e)
		return e, err
	}
	if len(v) == 0 || v[0] != entryV1 {
		return e, fmt.Errorf("unknown record form %x", v[:min(len(v), 1)])
	}
	d := decoder{b: v[1:]}
	e.Size = d.varint()
	e.ModTime = d.varint()
	e.Hash = d.string()
	e.Chunks = int(d.uvarint())
	e.Title = d.string()
	e.Lang = d.string()
	e.Warning = d.string()
	flags := d.uvarint()
	e.Superseded, e.Private = flags&flagSuperseded != 0, flags&flagPrivate != 0
	e.SupersededBy = d.string()
	e.Updated = d.varint()
	e.Dated = d.varint()
	e.LinkLines = int(d.uvarint())
	e.Lines = int(d.uvarint())
	return e, d.err
}

// decoder reads a binary entry; past the end of the record every field
// is zero (a field the record's writer did not know), while a field cut
// in the middle is an error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if len(d.b) == 0 || d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = errShortEntry, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) varint() int64 {
	if len(d.b) == 0 || d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = errShortEntry, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err, d.b = errShortEntry, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// sourceState returns what the catalog remembers of the source id.
func (c *catalog) sourceState(id string) (SourceState, error) {
	var st SourceState
	err := c.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(sourcesBucket).Get([]byte(id)); v != nil {
			return json.Unmarshal(v, &st)
		}
		return nil
	})
	return st, err
}

// setSourceState records st for the source id; nil forgets it.
func (c *catalog) setSourceState(id string, st *SourceState) error {
	return c.db.Update(func(tx *bolt.Tx) error {
		if st == nil {
			return tx.Bucket(sourcesBucket).Delete([]byte(id))
		}
		v, err := json.Marshal(st)
		if err != nil {
			return err
		}
		return tx.Bucket(sourcesBucket).Put([]byte(id), v)
	})
}

// sourceIDs lists the sources the catalog remembers.
func (c *catalog) sourceIDs() ([]string, error) {
	var ids []string
	err := c.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(sourcesBucket).ForEach(func(k, _ []byte) error {
			ids = append(ids, string(k))
			return nil
		})
	})
	return ids, err
}
