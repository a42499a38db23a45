package search

import "testing"

// A note with no vectors yet (the embedder still working through the
// vault, as right after a sidecar starts) is not far by meaning: it is
// unknown, and Related kept nothing while vectors were being computed.
func TestFarOnlyWithVectors(t *testing.T) {
	cos := map[string]float64{"close.md": 0.6, "far.md": 0.2}
	s := &Searcher{Embedded: func(p string) bool { return p != "unread.md" }}
	for _, tt := range []struct {
		path string
		want bool
	}{{"close.md", false}, {"far.md", true}, {"beyond-the-pool.md", true}, {"unread.md", false}} {
		if got := s.Far(cos, 0.4, tt.path); got != tt.want {
			t.Errorf("Far(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if s.Far(nil, 0.4, "far.md") {
		t.Error("with no cosines (keywords only) nothing is far")
	}
}
