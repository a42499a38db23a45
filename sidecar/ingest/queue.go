// Package ingest turns web pages and files into source notes. It owns the
// durable ingest queue (queue.go) and the URL normalisation that lets the
// queue refuse a page it has already seen; the guarded fetcher lives in
// ingest/fetch.
//
// The queue is a bbolt file (<state>/queue). Every operation is one bbolt
// transaction, so a process killed at any moment leaves a file that opens
// with each item in the state of its last committed operation; OpenQueue
// then puts items that were running back in the queue. An item's life:
//
//	Add → queued → Claim → running → Complete → done
//	                          ↘ Fail → failed → Retry → queued
//
// Attempts count failures only: a crash or a signal while an item runs is
// not the item's fault, so Recover puts it back without counting one.
package ingest

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// State is where an item is in its life.
type State string

// The states of an item.
const (
	StateQueued  State = "queued"  // waiting for Claim
	StateRunning State = "running" // claimed by a worker
	StateDone    State = "done"    // completed; Result holds the outcome
	StateFailed  State = "failed"  // failed; LastError says why, Retry requeues
)

// Item is one source in the queue.
type Item struct {
	ID        uint64    `json:"id"`                  // assigned by Add, increasing
	Source    string    `json:"source"`              // the URL or file path as given
	Key       string    `json:"key"`                 // Key(Source): the de-duplication key
	TextHash  string    `json:"text_hash,omitempty"` // hash of the extracted text, set by SetTextHash
	State     State     `json:"state"`
	Attempts  int       `json:"attempts"`             // failures so far
	LastError string    `json:"last_error,omitempty"` // reason of the last Fail
	Result    string    `json:"result,omitempty"`     // what Complete recorded, e.g. the note path
	Added     time.Time `json:"added"`
	Updated   time.Time `json:"updated"` // time of the last state change
}

// ErrNotFound is returned for an id the queue does not hold.
var ErrNotFound = errors.New("no such item")

// ErrState is returned when an operation does not apply to the item's
// current state (completing an item that is not running, retrying one that
// has not failed).
var ErrState = errors.New("wrong state")

// ErrDuplicate is matched (errors.Is) by every *DuplicateError.
var ErrDuplicate = errors.New("duplicate")

// ErrInUse is returned by OpenQueue when another process holds the queue.
var ErrInUse = errors.New("queue in use by another process")

// DuplicateError says which queued item a source duplicates. Add returns it
// for a source whose normalised URL or path is already queued, SetTextHash
// for extracted text another item already has.
type DuplicateError struct {
	By       string // "url" or "path" (same Key), or "text" (same TextHash)
	Existing Item   // the item already in the queue
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("duplicate: same %s as item %d (%s, %s)", e.By, e.Existing.ID, e.Existing.Source, e.Existing.State)
}

// Unwrap makes errors.Is(err, ErrDuplicate) true.
func (e *DuplicateError) Unwrap() error { return ErrDuplicate }

var (
	bucketItems  = []byte("items")  // id → Item JSON
	bucketKeys   = []byte("keys")   // Key → id
	bucketHashes = []byte("hashes") // TextHash → id
	bucketQueued = []byte("queued") // id → nothing; first key is the oldest queued item
	bucketMeta   = []byte("meta")
	metaVersion  = []byte("version")
)

const queueVersion = "1"

// claimHook, when set by a test, runs inside Claim's transaction after the
// item is marked running and before the commit, so a test can kill the
// process exactly mid-claim.
var claimHook func(Item)

// Queue is the durable ingest queue. Its methods are safe for concurrent use
// (bbolt serialises writers).
type Queue struct {
	db *bolt.DB
}

// OpenQueue opens or creates the queue file at path (conventionally
// <state>/queue) and recovers items a previous process left running. It
// fails with ErrInUse if another process has the file open.
func OpenQueue(path string) (*Queue, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open queue: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open queue %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("open queue %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketItems, bucketKeys, bucketHashes, bucketQueued, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		switch v := meta.Get(metaVersion); {
		case v == nil:
			return meta.Put(metaVersion, []byte(queueVersion))
		case string(v) != queueVersion:
			return fmt.Errorf("version %s, want %s", v, queueVersion)
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open queue %s: %w", path, err)
	}
	q := &Queue{db: db}
	if _, err := q.Recover(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open queue %s: %w", path, err)
	}
	return q, nil
}

// Close closes the queue file.
func (q *Queue) Close() error { return q.db.Close() }

// Add queues a source (an http or https URL, or a file path). A source whose
// Key is already in the queue, in any state, is refused with a
// *DuplicateError naming the existing item; a source that cannot be queued
// at all wraps ErrSource.
func (q *Queue) Add(source string) (Item, error) {
	source = strings.TrimSpace(source)
	key, err := Key(source)
	if err != nil {
		return Item{}, fmt.Errorf("add %s: %w", source, err)
	}
	var it Item
	err = q.db.Update(func(tx *bolt.Tx) error {
		if id := tx.Bucket(bucketKeys).Get([]byte(key)); id != nil {
			old, err := getItem(tx, btoi(id))
			if err != nil {
				return err
			}
			by := "url"
			if strings.HasPrefix(key, "file:") {
				by = "path"
			}
			return &DuplicateError{By: by, Existing: old}
		}
		items := tx.Bucket(bucketItems)
		id, err := items.NextSequence()
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		it = Item{ID: id, Source: source, Key: key, State: StateQueued, Added: now, Updated: now}
		if err := putItem(tx, it); err != nil {
			return err
		}
		if err := tx.Bucket(bucketKeys).Put([]byte(key), itob(id)); err != nil {
			return err
		}
		return tx.Bucket(bucketQueued).Put(itob(id), nil)
	})
	if err != nil {
		return Item{}, fmt.Errorf("add %s: %w", source, err)
	}
	return it, nil
}

// Find returns the item queued for source (by its Key), in any state;
// ok is false when the queue has none.
func (q *Queue) Find(source string) (it Item, ok bool, err error) {
	key, err := Key(strings.TrimSpace(source))
	if err != nil {
		return Item{}, false, fmt.Errorf("find %s: %w", source, err)
	}
	err = q.db.View(func(tx *bolt.Tx) error {
		id := tx.Bucket(bucketKeys).Get([]byte(key))
		if id == nil {
			return nil
		}
		it, err = getItem(tx, btoi(id))
		ok = err == nil
		return err
	})
	return it, ok, err
}

// SetTextHash records the hash of an item's extracted text. If another item
// already has that hash it is refused with a *DuplicateError naming that
// item, and the caller should stop before any model call (typically Fail
// with the error as reason). Setting the same hash again is a no-op.
func (q *Queue) SetTextHash(id uint64, hash string) error {
	if hash == "" {
		return fmt.Errorf("set text hash of item %d: empty hash", id)
	}
	err := q.db.Update(func(tx *bolt.Tx) error {
		it, err := getItem(tx, id)
		if err != nil {
			return err
		}
		hashes := tx.Bucket(bucketHashes)
		if other := hashes.Get([]byte(hash)); other != nil && btoi(other) != id {
			old, err := getItem(tx, btoi(other))
			if err != nil {
				return err
			}
			return &DuplicateError{By: "text", Existing: old}
		}
		if it.TextHash == hash {
			return nil
		}
		if it.TextHash != "" {
			if err := hashes.Delete([]byte(it.TextHash)); err != nil {
				return err
			}
		}
		it.TextHash = hash
		if err := hashes.Put([]byte(hash), itob(id)); err != nil {
			return err
		}
		return putItem(tx, it)
	})
	if err != nil {
		return fmt.Errorf("set text hash of item %d: %w", id, err)
	}
	return nil
}

// Claim moves the oldest queued item (lowest id) to running and returns it.
// ok is false when nothing is queued.
func (q *Queue) Claim() (it Item, ok bool, err error) {
	err = q.db.Update(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketQueued).Cursor().First()
		if k == nil {
			return nil
		}
		it, err = getItem(tx, btoi(k))
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketQueued).Delete(k); err != nil {
			return err
		}
		it.State = StateRunning
		it.Updated = time.Now().UTC()
		if err := putItem(tx, it); err != nil {
			return err
		}
		if claimHook != nil {
			claimHook(it)
		}
		ok = true
		return nil
	})
	if err != nil {
		return Item{}, false, fmt.Errorf("claim: %w", err)
	}
	return it, ok, nil
}

// Complete marks a running item done and records result (for instance the
// path of the note written).
func (q *Queue) Complete(id uint64, result string) error {
	return q.transition("complete", id, StateRunning, func(it *Item) {
		it.State = StateDone
		it.Result = result
		it.LastError = ""
	})
}

// Fail marks a running item failed, counts an attempt and records reason.
func (q *Queue) Fail(id uint64, reason string) error {
	return q.transition("fail", id, StateRunning, func(it *Item) {
		it.State = StateFailed
		it.Attempts++
		it.LastError = reason
	})
}

// Retry puts a failed item back in the queue. Claim takes items in the order
// they were added, so a retried item runs before those added after it. Its
// attempts and last error are kept.
func (q *Queue) Retry(id uint64) error {
	return q.transition("retry", id, StateFailed, func(it *Item) {
		it.State = StateQueued
	})
}

// transition applies change to item id if it is in state from, keeping the
// queued index in step with the new state.
func (q *Queue) transition(op string, id uint64, from State, change func(*Item)) error {
	err := q.db.Update(func(tx *bolt.Tx) error {
		it, err := getItem(tx, id)
		if err != nil {
			return err
		}
		if it.State != from {
			return fmt.Errorf("%w: item is %s, not %s", ErrState, it.State, from)
		}
		change(&it)
		it.Updated = time.Now().UTC()
		if it.State == StateQueued {
			if err := tx.Bucket(bucketQueued).Put(itob(id), nil); err != nil {
				return err
			}
		}
		return putItem(tx, it)
	})
	if err != nil {
		return fmt.Errorf("%s item %d: %w", op, id, err)
	}
	return nil
}

// Remove deletes an item that is not running, so its source can be added
// again.
func (q *Queue) Remove(id uint64) error {
	err := q.db.Update(func(tx *bolt.Tx) error {
		it, err := getItem(tx, id)
		if err != nil {
			return err
		}
		if it.State == StateRunning {
			return fmt.Errorf("%w: item is running", ErrState)
		}
		for _, del := range []struct {
			bucket []byte
			key    []byte
		}{
			{bucketItems, itob(id)},
			{bucketQueued, itob(id)},
			{bucketKeys, []byte(it.Key)},
		} {
			if err := tx.Bucket(del.bucket).Delete(del.key); err != nil {
				return err
			}
		}
		if it.TextHash != "" {
			return tx.Bucket(bucketHashes).Delete([]byte(it.TextHash))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remove item %d: %w", id, err)
	}
	return nil
}

// Recover puts every running item back in the queue without counting an
// attempt and returns how many it moved. OpenQueue calls it; a process that
// holds the queue must not call it while its own workers run.
func (q *Queue) Recover() (int, error) {
	n := 0
	err := q.db.Update(func(tx *bolt.Tx) error {
		var running []Item
		err := tx.Bucket(bucketItems).ForEach(func(_, v []byte) error {
			var it Item
			if err := json.Unmarshal(v, &it); err != nil {
				return err
			}
			if it.State == StateRunning {
				running = append(running, it)
			}
			return nil
		})
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		for _, it := range running {
			it.State = StateQueued
			it.Updated = now
			if err := putItem(tx, it); err != nil {
				return err
			}
			if err := tx.Bucket(bucketQueued).Put(itob(it.ID), nil); err != nil {
				return err
			}
		}
		n = len(running)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("recover: %w", err)
	}
	return n, nil
}

// Get returns item id.
func (q *Queue) Get(id uint64) (Item, error) {
	var it Item
	err := q.db.View(func(tx *bolt.Tx) error {
		var err error
		it, err = getItem(tx, id)
		return err
	})
	if err != nil {
		return Item{}, fmt.Errorf("get item %d: %w", id, err)
	}
	return it, nil
}

// List returns every item, oldest first.
func (q *Queue) List() ([]Item, error) {
	var items []Item
	err := q.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketItems).ForEach(func(_, v []byte) error {
			var it Item
			if err := json.Unmarshal(v, &it); err != nil {
				return err
			}
			items = append(items, it)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list queue: %w", err)
	}
	return items, nil
}

func getItem(tx *bolt.Tx, id uint64) (Item, error) {
	v := tx.Bucket(bucketItems).Get(itob(id))
	if v == nil {
		return Item{}, ErrNotFound
	}
	var it Item
	if err := json.Unmarshal(v, &it); err != nil {
		return Item{}, fmt.Errorf("decode item %d: %w", id, err)
	}
	return it, nil
}

func putItem(tx *bolt.Tx, it Item) error {
	v, err := json.Marshal(it)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketItems).Put(itob(it.ID), v)
}

// itob encodes an id big-endian so bbolt's byte order is id order.
func itob(id uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, id)
	return b
}

func btoi(b []byte) uint64 { return binary.BigEndian.Uint64(b) }
