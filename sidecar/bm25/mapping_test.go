package bm25

import "testing"

// TestMappingWritesOnlyWhatSearchReads: no query sorts, facets or
// highlights, nor searches the composite _all field, so no field keeps
// doc values or term vectors and _all is not built: each cost a share of
// every batch and merge, and a fifth of the index on disk (issue 30).
func TestMappingWritesOnlyWhatSearchReads(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	if all, ok := m.DefaultMapping.Properties["_all"]; !ok || all.Enabled {
		t.Error("the _all field is built")
	}
	n := 0
	for name, p := range m.DefaultMapping.Properties {
		for _, f := range p.Fields {
			n++
			if f.DocValues || f.IncludeTermVectors {
				t.Errorf("%s: doc values %v, term vectors %v", name, f.DocValues, f.IncludeTermVectors)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d fields", n)
	}
}
