package grep

import (
	"context"
	"testing"

	"github.com/quire-app/quire/sidecar/internal/benchdir"
	"github.com/quire-app/quire/sidecar/vault"
)

// BenchmarkSearch searches the til corpus in this process, without a
// process's start-up (scripts/bench-grep measures whole processes).
func BenchmarkSearch(b *testing.B) {
	dir := benchdir.Require(b, "jbranchaud-til", "corpus")
	root := Root{Source: "vault", Dir: dir, Rules: vault.NewRules(dir, nil, 0)}
	for _, p := range []struct {
		name, pattern string
		regex         bool
	}{{"literal", "the", false}, {"literal-case", "Obsidian", false}, {"regex", `v[0-9]+\.[0-9]+`, true}} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Search(context.Background(), []Root{root}, Options{Pattern: p.pattern, Regex: p.regex, MaxMatches: 1 << 30}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
