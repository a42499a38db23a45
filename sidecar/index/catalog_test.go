package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// An entry survives the binary form whole, a record cut in the middle is
// an error, and one that ends before a field (written before the field
// existed) reads it as zero.
func TestEntryBinaryForm(t *testing.T) {
	e := Entry{Size: 1234, ModTime: -5, Hash: "h", Chunks: 7, Title: "Tïtle", Lang: "cs", Warning: "w",
		Superseded: true, SupersededBy: "Plan v2", Private: true, Updated: 1764748800, Dated: 1764633600}
	b := encodeEntry(&e)
	got, err := decodeEntry(b)
	if err != nil || got != e {
		t.Fatalf("decode: %+v, %v; want %+v", got, err, e)
	}
	if _, err := decodeEntry(b[:len(b)-3]); err == nil {
		t.Error("a record cut inside its last field decoded")
	}
	short := encodeEntry(&Entry{Size: 1, Chunks: 2})
	short = short[:len(short)-3] // no SupersededBy, Updated, Dated: an older writer
	if got, err := decodeEntry(short); err != nil || got != (Entry{Size: 1, Chunks: 2}) {
		t.Errorf("older record: %+v, %v", got, err)
	}
}

// A catalog written as JSON, one record per note as before the binary
// form, opens without a rebuild: no note is re-chunked, a changed one is
// re-read and written in the binary form, and the kept ones still read.
func TestCatalogJSONMigrates(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# A\n\nalpha words\n", "b.md": "# B\n\nbeta words\n"})
	f.run()
	f.close()
	db, err := bolt.Open(filepath.Join(f.vault, ".quire", "catalog"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(filesBucket)
		return b.ForEach(func(k, v []byte) error {
			e, err := decodeEntry(v)
			if err != nil {
				return err
			}
			raw, _ := json.Marshal(e)
			return b.Put(k, raw)
		})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.open()
	if st := f.run(); st.Changed != 0 || st.Notes != 2 {
		t.Fatalf("after the JSON catalog: %+v, want nothing re-chunked", st)
	}
	f.write("a.md", "# A\n\nalpha gamma\n")
	if st := f.run(); st.Changed != 1 {
		t.Fatalf("edit: %+v", st)
	}
	f.close()
	f.open()
	if hits := f.search("gamma"); len(hits) != 1 || hits[0].Path != "a.md" {
		t.Errorf("gamma: %+v", hits)
	}
	if e, ok := f.ix.cat.get("b.md"); !ok || e.Chunks != 1 {
		t.Errorf("b.md after reopening: %+v %v", e, ok)
	}
}

// RunPaths reads only the notes and folders it is told about: an edit
// elsewhere waits for a whole Run, a named note is re-read, a removed
// folder's notes leave, a folder moved in is indexed, and the files
// skipped elsewhere are still reported.
func TestRunPaths(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n", "Old/c.md": "# C\n\ncharlie\n", "big.md": "# Big\n\nbig\n"})
	cfg := f.ix.cfg
	cfg.MaxFileBytes = 1000
	f.close()
	f.openWith(cfg)
	f.write("big.md", "# Big\n\n"+string(make([]byte, 2000)))
	f.run()
	ctx := context.Background()

	f.write("a.md", "# A\n\nalpha delta\n")
	f.write("b.md", "# B\n\nbeta delta\n")
	st, err := f.ix.RunPaths(ctx, []string{"a.md"})
	if err != nil || st.Changed != 1 {
		t.Fatalf("RunPaths a.md: %+v, %v", st, err)
	}
	if got := paths(f.search("delta")); got != "a.md" {
		t.Errorf("delta after RunPaths a.md: %v, want only a.md (b.md was not named)", got)
	}
	if len(st.Skipped) != 1 || st.Skipped[0].Path != "big.md" {
		t.Errorf("skipped: %+v, want big.md kept from the whole run", st.Skipped)
	}

	if err := os.RemoveAll(filepath.Join(f.vault, "Old")); err != nil {
		t.Fatal(err)
	}
	f.write("New/d/e.md", "# E\n\necho\n")
	if st, err = f.ix.RunPaths(ctx, []string{"Old", "New/"}); err != nil || st.Removed != 1 || st.Changed != 1 {
		t.Fatalf("RunPaths Old New/: %+v, %v", st, err)
	}
	if hits := f.search("charlie"); len(hits) != 0 {
		t.Errorf("charlie after its folder went: %+v", hits)
	}
	if got := paths(f.search("echo")); got != "New/d/e.md" {
		t.Errorf("echo: %v", got)
	}
	if st := f.run(); st.Changed != 1 {
		t.Errorf("the whole run after: %+v, want b.md only", st)
	}
}

// RunPaths refuses, as Run does, to empty the index when every note it
// is told about is gone with the vault.
func TestRunPathsVaultGone(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	f.run()
	if err := os.Remove(filepath.Join(f.vault, "a.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ix.RunPaths(context.Background(), []string{"a.md"}); err == nil {
		t.Fatal("RunPaths emptied the index")
	}
	if hits := f.search("alpha"); len(hits) != 1 {
		t.Errorf("alpha: %+v, want the index left as it was", hits)
	}
}
