package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// An entry survives the binary form whole, a record cut in the middle is
// an error, and one that ends before a field (written before the field
// existed) reads it as zero.
func TestEntryBinaryForm(t *testing.T) {
	e := Entry{Size: 1234, ModTime: -5, Hash: "h", Chunks: 7, Title: "Tïtle", Lang: "cs", Warning: "w",
		Superseded: true, SupersededBy: "Plan v2", Private: true, Updated: 1764748800, Dated: 1764633600, LinkLines: 12, Lines: 300}
	b := encodeEntry(&e)
	got, err := decodeEntry(b)
	if err != nil || got != e {
		t.Fatalf("decode: %+v, %v; want %+v", got, err, e)
	}
	if _, err := decodeEntry(b[:len(b)-1]); err == nil {
		t.Error("a record cut inside its last field decoded")
	}
	short := encodeEntry(&Entry{Size: 1, Chunks: 2})
	short = short[:len(short)-5] // no SupersededBy, Updated, Dated, LinkLines, Lines: an older writer
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
	if e, ok, err := f.ix.cat.get("b.md"); err != nil || !ok || e.Chunks != 1 {
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

// The tally and the marked notes, kept beside the records in the same
// transactions, always equal what the records add up to: after a cold
// run, edits that mark and unmark notes, a removal and a reopening. A
// reopened catalog answers them, status's summary with its warnings, and
// one note's entry, without reading every record; one written before the
// tally, or before warned notes were marked, gets them at open.
func TestCatalogTally(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md":   "# A\n\nalpha words here\n",
		"b.md":   "---\nlang: it\n---\n# B\n\nparole italiane\n",
		"old.md": "---\nsuperseded_by: \"[[a]]\"\n---\n# Old\n\nold plan\n",
		"bad.md": "---\ntitle: [unclosed\n---\n# Bad\n\nkept despite its frontmatter\n",
	})
	f.run()
	check := func(when string, nmarks int) {
		t.Helper()
		tally, marks := f.ix.Tally()
		if len(marks) != nmarks {
			t.Errorf("%s: marked %v, want %d notes", when, marks, nmarks)
		}
		var want catalog
		if err := f.ix.cat.db.Update(want.summarize); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tally, want.tally) || !reflect.DeepEqual(marks, want.marks) {
			t.Errorf("%s: tally %+v marks %v; the records add up to %+v, %v", when, tally, marks, want.tally, want.marks)
		}
	}
	check("cold run", 2)
	f.write("a.md", "---\nprivate: true\n---\n# A\n\nalpha words here and more\n")
	f.write("c.md", "# C\n\ncharlie\n\n## More\n\nmore words\n")
	f.run()
	check("edits", 3)
	if err := os.Remove(filepath.Join(f.vault, "b.md")); err != nil {
		t.Fatal(err)
	}
	f.write("old.md", "# Old\n\nno longer superseded\n")
	f.run()
	check("removal", 2)
	f.close()
	f.open()
	if f.ix.Loaded() {
		t.Fatal("the catalog was read whole at open")
	}
	check("reopened", 2)
	noAll := func() (map[string]Entry, error) { t.Error("the summary read every record"); return nil, nil }
	sum, err := f.ix.Summary(noAll)
	if err != nil || sum.Notes != 4 || len(sum.Warnings) != 1 || sum.Warnings[0].Path != "bad.md" || !strings.Contains(sum.Warnings[0].Reason, "frontmatter") {
		t.Errorf("summary %+v, %v: want 4 notes and bad.md's warning", sum, err)
	}
	if e, ok, err := f.ix.Entry("a.md"); err != nil || !ok || !e.Private {
		t.Errorf("a.md: %+v %v %v", e, ok, err)
	}
	if _, ok, err := f.ix.Entry("b.md"); err != nil || ok {
		t.Errorf("b.md after its removal: %v %v", ok, err)
	}
	if f.ix.Loaded() {
		t.Error("Entry read the catalog whole")
	}
	tally, _ := f.ix.Tally()
	f.close()

	// As a catalog written before the tally.
	db, err := bolt.Open(filepath.Join(f.vault, ".quire", "catalog"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(marksBucket); err != nil {
			return err
		}
		return tx.Bucket(metaBucket).Delete(tallyKey)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.open()
	if got, _ := f.ix.Tally(); !reflect.DeepEqual(got, tally) || got.Notes != 4 {
		t.Errorf("tally made at open: %+v, want %+v", got, tally)
	}
	check("made at open", 2)
	f.close()

	// As a catalog an older release wrote since: its marked notes, which
	// held no warnings, in a bucket of another name, and this one's left
	// behind.
	db, err = bolt.Open(filepath.Join(f.vault, ".quire", "catalog"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(marksBucket).Delete([]byte("bad.md")); err != nil {
			return err
		}
		_, err := tx.CreateBucket(oldMarks)
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.open()
	check("marks made again at open", 2)
	if sum, _ := f.ix.Summary(noAll); len(sum.Warnings) != 1 {
		t.Errorf("after the old marks: warnings %+v, want bad.md's", sum.Warnings)
	}
}
