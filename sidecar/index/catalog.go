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
	// marksBucket holds the records of the notes marked private or
	// superseded and of those with a warning, a few of the vault's: what
	// a search must know of every note before it runs, and what status
	// lists, read without reading the rest. (The bucket "marks" before
	// it held no warnings: a catalog holding that one is summarized again
	// at open, which removes it.)
	marksBucket = []byte("marks2")
	oldMarks    = []byte("marks")
	// tallyKey (in metaBucket) is what the records add up to (Tally).
	tallyKey = []byte("tally")
)

// Tally is what the catalog's records add up to, kept in the file beside
// them and changed in the same transaction, so that a one-shot command
// knows the vault's languages without reading every record.
type Tally struct {
	Notes  int `json:"notes"`
	Chunks int `json:"chunks"`
	// Langs counts notes per Entry.Lang ("" included).
	Langs map[string]int `json:"langs"`
}

func (t *Tally) add(e Entry, sign int) {
	t.Notes += sign
	t.Chunks += sign * e.Chunks
	t.Langs[e.Lang] += sign
	if t.Langs[e.Lang] == 0 {
		delete(t.Langs, e.Lang)
	}
}

func (t Tally) clone() Tally {
	t.Langs = maps.Clone(t.Langs)
	return t
}

// marked reports whether e belongs in marksBucket.
func marked(e Entry) bool { return e.Private || e.Superseded || e.Warning != "" || OutOfScale(e) }

// catalog is the bbolt file <state>/catalog: per note, its size, mtime,
// hash and chunk count. It is written after the keyword index, so a crash
// between the two only makes the next run redo the affected notes. The
// file is the truth. The notes are read from it whole the first time a
// pass or a whole-vault question needs them and then kept in memory,
// changed only after a write to the file succeeded, so that a pass costs
// what it changes, not a read of every record; until then (a one-shot
// search) a note is read by its key, and the tally and the marked notes,
// read at open, answer for the whole vault.
type catalog struct {
	db    *bolt.DB
	wmu   sync.Mutex       // one apply or clear at a time
	mu    sync.RWMutex     // guards files, tally and marks
	files map[string]Entry // nil until read whole (load)
	tally Tally
	marks map[string]Entry
}

func openCatalog(path string) (*catalog, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	c := &catalog{db: db}
	var fresh bool
	err = db.View(func(tx *bolt.Tx) error {
		mb := tx.Bucket(metaBucket)
		// The old marks bucket is there when a release before the warned
		// notes were marked wrote the catalog since: marksBucket may then
		// miss its changes.
		if tx.Bucket(filesBucket) == nil || tx.Bucket(sourcesBucket) == nil || tx.Bucket(marksBucket) == nil || tx.Bucket(oldMarks) != nil || mb == nil || mb.Get(tallyKey) == nil {
			fresh = true
			return nil
		}
		return c.readSummary(tx)
	})
	if err == nil && fresh {
		// A new catalog, or one written before the tally: made once, from
		// every record.
		err = db.Update(c.summarize)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("init catalog %s: %w", path, err)
	}
	return c, nil
}

// readSummary reads the tally and the marked notes.
func (c *catalog) readSummary(tx *bolt.Tx) error {
	if err := json.Unmarshal(tx.Bucket(metaBucket).Get(tallyKey), &c.tally); err != nil {
		return fmt.Errorf("tally: %w", err)
	}
	if c.tally.Langs == nil {
		c.tally.Langs = map[string]int{}
	}
	c.marks = map[string]Entry{}
	return tx.Bucket(marksBucket).ForEach(func(k, v []byte) error {
		e, err := decodeEntry(v)
		if err != nil {
			return fmt.Errorf("catalog entry %s: %w", k, err)
		}
		c.marks[string(k)] = e
		return nil
	})
}

// summarize makes the buckets, and the tally and the marked notes from
// every record.
func (c *catalog) summarize(tx *bolt.Tx) error {
	for _, b := range [][]byte{filesBucket, metaBucket, sourcesBucket} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	for _, b := range [][]byte{marksBucket, oldMarks} {
		if tx.Bucket(b) != nil {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
	}
	mb, err := tx.CreateBucket(marksBucket)
	if err != nil {
		return err
	}
	c.tally, c.marks = Tally{Langs: map[string]int{}}, map[string]Entry{}
	err = tx.Bucket(filesBucket).ForEach(func(k, v []byte) error {
		e, err := decodeEntry(v)
		if err != nil {
			return fmt.Errorf("catalog entry %s: %w", k, err)
		}
		c.tally.add(e, 1)
		if marked(e) {
			c.marks[string(k)] = e
			return mb.Put(k, encodeEntry(&e))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return putTally(tx, c.tally)
}

func putTally(tx *bolt.Tx, t Tally) error {
	v, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return tx.Bucket(metaBucket).Put(tallyKey, v)
}

func (c *catalog) close() error { return c.db.Close() }

// load reads every record into files, once; c.mu must be held for
// writing.
func (c *catalog) load() error {
	if c.files != nil {
		return nil
	}
	files := make(map[string]Entry, c.tally.Notes)
	err := c.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(filesBucket).ForEach(func(k, v []byte) error {
			e, err := decodeEntry(v)
			if err != nil {
				return fmt.Errorf("catalog entry %s: %w", k, err)
			}
			files[string(k)] = e
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("read catalog: %w", err)
	}
	c.files = files
	return nil
}

// loaded reports whether the notes have been read whole.
func (c *catalog) loaded() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.files != nil
}

// entries returns a copy of the notes, which the caller may keep.
func (c *catalog) entries() (map[string]Entry, error) {
	var out map[string]Entry
	err := c.read(func(files map[string]Entry) { out = maps.Clone(files) })
	return out, err
}

// entriesOf returns a copy of the notes of the source id.
func (c *catalog) entriesOf(id string) (map[string]Entry, error) {
	out := map[string]Entry{}
	err := c.read(func(files map[string]Entry) {
		for k, e := range files {
			if sid, _ := source.Split(k); sid == id {
				out[k] = e
			}
		}
	})
	return out, err
}

// countOf returns how many notes the source id has.
func (c *catalog) countOf(id string) (int, error) {
	n := 0
	err := c.read(func(files map[string]Entry) {
		for k := range files {
			if sid, _ := source.Split(k); sid == id {
				n++
			}
		}
	})
	return n, err
}

// summary returns the tally and the marked notes.
func (c *catalog) summary() (Tally, map[string]Entry) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.tally.clone(), maps.Clone(c.marks)
}

// get returns one note's entry: from memory once the notes are read
// whole, else from the file.
func (c *catalog) get(p string) (Entry, bool, error) {
	c.mu.RLock()
	if c.files != nil {
		defer c.mu.RUnlock()
		e, ok := c.files[p]
		return e, ok, nil
	}
	c.mu.RUnlock()
	var e Entry
	var ok bool
	err := c.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(filesBucket).Get([]byte(p))
		if v == nil {
			return nil
		}
		var err error
		e, err = decodeEntry(v)
		ok = err == nil
		return err
	})
	if err != nil {
		return Entry{}, false, fmt.Errorf("catalog entry %s: %w", p, err)
	}
	return e, ok, nil
}

// read calls f with the notes, read whole first if they are not yet;
// f must neither keep nor change them.
func (c *catalog) read(f func(map[string]Entry)) error {
	c.mu.RLock()
	if c.files == nil {
		c.mu.RUnlock()
		c.mu.Lock()
		err := c.load()
		c.mu.Unlock()
		if err != nil {
			return err
		}
		c.mu.RLock()
	}
	defer c.mu.RUnlock()
	f(c.files)
	return nil
}

// apply writes entries (nil deletes) in one transaction, with the tally
// and the marked notes they change.
func (c *catalog) apply(changes map[string]*Entry) error {
	if len(changes) == 0 {
		return nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.RLock()
	tally, marks := c.tally.clone(), maps.Clone(c.marks)
	c.mu.RUnlock()
	err := c.db.Update(func(tx *bolt.Tx) error {
		b, mb := tx.Bucket(filesBucket), tx.Bucket(marksBucket)
		for p, e := range changes {
			k := []byte(p)
			if v := b.Get(k); v != nil {
				old, err := decodeEntry(v)
				if err != nil {
					return fmt.Errorf("catalog entry %s: %w", p, err)
				}
				tally.add(old, -1)
			}
			if e == nil || !marked(*e) {
				delete(marks, p)
				if err := mb.Delete(k); err != nil {
					return err
				}
			}
			if e == nil {
				if err := b.Delete(k); err != nil {
					return err
				}
				continue
			}
			tally.add(*e, 1)
			v := encodeEntry(e)
			if marked(*e) {
				marks[p] = *e
				if err := mb.Put(k, v); err != nil {
					return err
				}
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
		}
		return putTally(tx, tally)
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tally, c.marks = tally, marks
	if c.files == nil {
		return nil // read from the file when first needed
	}
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
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
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
		return c.summarize(tx)
	})
	if err != nil {
		return err
	}
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
