package index

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

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
}

// Meta is the catalog's record of the last run.
type Meta struct {
	Fingerprint string       `json:"fingerprint"`
	LastIndex   time.Time    `json:"lastIndex"`
	Skipped     []vault.Skip `json:"skipped"`
}

var (
	filesBucket = []byte("files")
	metaBucket  = []byte("meta")
	metaKey     = []byte("meta")
)

// catalog is the bbolt file <state>/catalog: per note, its size, mtime,
// hash and chunk count. It is written after the keyword index, so a crash
// between the two only makes the next run redo the affected notes.
type catalog struct{ db *bolt.DB }

func openCatalog(path string) (*catalog, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{filesBucket, metaBucket} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("init catalog %s: %w", path, err)
	}
	return &catalog{db: db}, nil
}

func (c *catalog) close() error { return c.db.Close() }

func (c *catalog) entries() (map[string]Entry, error) {
	out := map[string]Entry{}
	err := c.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(filesBucket).ForEach(func(k, v []byte) error {
			var e Entry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("catalog entry %s: %w", k, err)
			}
			out[string(k)] = e
			return nil
		})
	})
	return out, err
}

// apply writes entries (nil deletes) in one transaction.
func (c *catalog) apply(changes map[string]*Entry) error {
	if len(changes) == 0 {
		return nil
	}
	return c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(filesBucket)
		for p, e := range changes {
			if e == nil {
				if err := b.Delete([]byte(p)); err != nil {
					return err
				}
				continue
			}
			v, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(p), v); err != nil {
				return err
			}
		}
		return nil
	})
}

func (c *catalog) clear() error {
	return c.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(filesBucket); err != nil {
			return err
		}
		_, err := tx.CreateBucket(filesBucket)
		return err
	})
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
