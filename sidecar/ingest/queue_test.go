package ingest

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func openTemp(t *testing.T) (*Queue, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "queue")
	q, err := OpenQueue(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q, path
}

func mustAdd(t *testing.T, q *Queue, src string) Item {
	t.Helper()
	it, err := q.Add(src)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func TestQueueLifecycle(t *testing.T) {
	q, _ := openTemp(t)
	a := mustAdd(t, q, "https://example.org/a")
	b := mustAdd(t, q, "https://example.org/b")
	if a.State != StateQueued || a.Key != "https://example.org/a" || b.ID <= a.ID {
		t.Fatalf("added %+v, %+v", a, b)
	}

	got, ok, err := q.Claim()
	if err != nil || !ok || got.ID != a.ID || got.State != StateRunning {
		t.Fatalf("Claim = %+v, %v, %v; want item %d running", got, ok, err, a.ID)
	}
	if err := q.Fail(a.ID, "fetch: timeout"); err != nil {
		t.Fatal(err)
	}
	if got, _ := q.Get(a.ID); got.State != StateFailed || got.Attempts != 1 || got.LastError != "fetch: timeout" {
		t.Errorf("after Fail: %+v", got)
	}
	if err := q.Retry(a.ID); err != nil {
		t.Fatal(err)
	}
	// The retried item was added first, so it is claimed first again.
	got, _, _ = q.Claim()
	if got.ID != a.ID || got.Attempts != 1 {
		t.Errorf("Claim after Retry = %+v, want item %d with 1 attempt", got, a.ID)
	}
	if err := q.Complete(a.ID, "Quire/Sources/A.md"); err != nil {
		t.Fatal(err)
	}
	if got, _ := q.Get(a.ID); got.State != StateDone || got.Result != "Quire/Sources/A.md" || got.LastError != "" {
		t.Errorf("after Complete: %+v", got)
	}
	got, _, _ = q.Claim()
	if got.ID != b.ID {
		t.Errorf("Claim = item %d, want %d", got.ID, b.ID)
	}
	if _, ok, err := q.Claim(); ok || err != nil {
		t.Errorf("Claim on empty queue: ok=%v err=%v", ok, err)
	}

	list, err := q.List()
	if err != nil {
		t.Fatal(err)
	}
	var states []State
	for _, it := range list {
		states = append(states, it.State)
	}
	if want := []State{StateDone, StateRunning}; !slices.Equal(states, want) {
		t.Errorf("List states = %v, want %v", states, want)
	}
}

func TestQueueWrongState(t *testing.T) {
	q, _ := openTemp(t)
	a := mustAdd(t, q, "https://example.org/a")
	tests := []struct {
		name string
		op   func() error
		want error
	}{
		{"complete queued", func() error { return q.Complete(a.ID, "") }, ErrState},
		{"fail queued", func() error { return q.Fail(a.ID, "x") }, ErrState},
		{"retry queued", func() error { return q.Retry(a.ID) }, ErrState},
		{"complete missing", func() error { return q.Complete(99, "") }, ErrNotFound},
		{"text hash missing", func() error { return q.SetTextHash(99, "h") }, ErrNotFound},
		{"remove missing", func() error { return q.Remove(99) }, ErrNotFound},
	}
	for _, tt := range tests {
		if err := tt.op(); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	q.Claim()
	if err := q.Remove(a.ID); !errors.Is(err, ErrState) {
		t.Errorf("remove running: err = %v, want ErrState", err)
	}
}

func TestAddRefusesDuplicateURL(t *testing.T) {
	q, _ := openTemp(t)
	a := mustAdd(t, q, "https://example.org/post/")
	for _, src := range []string{
		"https://example.org/post/",
		"https://example.org/post?utm_source=x",
		"HTTPS://EXAMPLE.ORG:443/post#comments",
		"https://example.org/post?fbclid=abc&gclid=def",
	} {
		_, err := q.Add(src)
		var dup *DuplicateError
		if !errors.As(err, &dup) || !errors.Is(err, ErrDuplicate) {
			t.Errorf("Add(%q) err = %v, want *DuplicateError", src, err)
			continue
		}
		if dup.By != "url" || dup.Existing.ID != a.ID {
			t.Errorf("Add(%q) duplicate = %+v, want url of item %d", src, dup, a.ID)
		}
	}
	_, err := q.Add("https://example.org/post?utm_source=x")
	if want := "add https://example.org/post?utm_source=x: duplicate: same url as item 1 (https://example.org/post/, queued)"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	// A different query is a different page.
	mustAdd(t, q, "https://example.org/post?page=2")
	// Removing the item lets the source in again.
	if err := q.Remove(a.ID); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, q, "https://example.org/post?utm_source=x")
	file := mustAdd(t, q, "/vault/Quire/Inbox/paper.pdf")
	_, err = q.Add("/vault/Quire/Inbox/../Inbox/paper.pdf")
	var dup *DuplicateError
	if !errors.As(err, &dup) || dup.By != "path" || dup.Existing.ID != file.ID {
		t.Errorf("Add(same file) err = %v, want path duplicate of item %d", err, file.ID)
	}
	if _, err := q.Add("ftp://example.org/x"); !errors.Is(err, ErrSource) {
		t.Errorf("Add(ftp) err = %v, want ErrSource", err)
	}
}

func TestSetTextHashRefusesDuplicate(t *testing.T) {
	q, _ := openTemp(t)
	a := mustAdd(t, q, "https://example.org/a")
	b := mustAdd(t, q, "https://mirror.example.net/a")
	if err := q.SetTextHash(a.ID, "sha256:1"); err != nil {
		t.Fatal(err)
	}
	if err := q.SetTextHash(a.ID, "sha256:1"); err != nil {
		t.Errorf("same hash again: %v", err)
	}
	err := q.SetTextHash(b.ID, "sha256:1")
	var dup *DuplicateError
	if !errors.As(err, &dup) || dup.By != "text" || dup.Existing.ID != a.ID {
		t.Fatalf("SetTextHash dup err = %v, want text duplicate of item %d", err, a.ID)
	}
	// Changing a's hash frees the old one.
	if err := q.SetTextHash(a.ID, "sha256:2"); err != nil {
		t.Fatal(err)
	}
	if err := q.SetTextHash(b.ID, "sha256:1"); err != nil {
		t.Errorf("after a's hash changed: %v", err)
	}
	if got, _ := q.Get(b.ID); got.TextHash != "sha256:1" {
		t.Errorf("TextHash = %q", got.TextHash)
	}
}

func TestReopenRecoversRunning(t *testing.T) {
	q, path := openTemp(t)
	a := mustAdd(t, q, "https://example.org/a")
	mustAdd(t, q, "https://example.org/b")
	q.Claim()
	q.Fail(a.ID, "x")
	q.Retry(a.ID)
	q.Claim() // a running again, with 1 attempt
	q.Claim() // b running
	q.Close()

	q2, err := OpenQueue(path)
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	list, _ := q2.List()
	for _, it := range list {
		want := 0
		if it.ID == a.ID {
			want = 1
		}
		if it.State != StateQueued || it.Attempts != want {
			t.Errorf("item %d after reopen: %s with %d attempts, want queued with %d", it.ID, it.State, it.Attempts, want)
		}
	}
	checkInvariants(t, q2)
	if got, _, _ := q2.Claim(); got.ID != a.ID {
		t.Errorf("first claim after reopen = %d, want %d", got.ID, a.ID)
	}
}

func TestOpenQueueInUse(t *testing.T) {
	_, path := openTemp(t)
	if _, err := OpenQueue(path); !errors.Is(err, ErrInUse) {
		t.Errorf("second OpenQueue err = %v, want ErrInUse", err)
	}
}

// checkInvariants verifies the index buckets agree with the items: what a
// torn write would break.
func checkInvariants(t *testing.T, q *Queue) {
	t.Helper()
	err := q.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("bbolt check: %v", err)
		}
		items := map[uint64]Item{}
		var keys, hashes, queued int
		tx.Bucket(bucketItems).ForEach(func(k, _ []byte) error {
			it, err := getItem(tx, btoi(k))
			if err != nil {
				t.Errorf("item %d: %v", btoi(k), err)
			}
			items[it.ID] = it
			return nil
		})
		for id, it := range items {
			if it.State == StateRunning {
				t.Errorf("item %d still running", id)
			}
			if v := tx.Bucket(bucketKeys).Get([]byte(it.Key)); v == nil || btoi(v) != id {
				t.Errorf("item %d: key index %v", id, v)
			}
			if it.TextHash != "" {
				hashes++
				if v := tx.Bucket(bucketHashes).Get([]byte(it.TextHash)); v == nil || btoi(v) != id {
					t.Errorf("item %d: hash index %v", id, v)
				}
			}
			inQueue := tx.Bucket(bucketQueued).Get(itob(id)) != nil
			if inQueue != (it.State == StateQueued) {
				t.Errorf("item %d is %s, in queued index: %v", id, it.State, inQueue)
			}
			if inQueue {
				queued++
			}
			keys++
		}
		if n := tx.Bucket(bucketKeys).Stats().KeyN; n != keys {
			t.Errorf("key index has %d entries, want %d", n, keys)
		}
		if n := tx.Bucket(bucketHashes).Stats().KeyN; n != hashes {
			t.Errorf("hash index has %d entries, want %d", n, hashes)
		}
		if n := tx.Bucket(bucketQueued).Stats().KeyN; n != queued {
			t.Errorf("queued index has %d entries, want %d", n, queued)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
