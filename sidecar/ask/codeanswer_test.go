package ask

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/quire-app/quire/sidecar/internal/benchdir"
	"github.com/quire-app/quire/sidecar/search"
)

// devSets are the corpora of shared/bench with their dev questions.
var devSets = []struct{ name, corpus, gold string }{
	{"ariostea", "ariostea-wiki/corpus", "ariostea-wiki/dev/gold.dev.json"},
	{"help-en", "obsidian-help/corpus-en", "obsidian-help/dev/gold.en.json"},
	{"help-multi", "obsidian-help/corpus-multi", "obsidian-help/dev/gold.multi.json"},
	{"appunti", "appunti/corpus", "appunti/dev/gold.dev.json"},
	{"til", "jbranchaud-til/corpus", "jbranchaud-til/dev/gold.dev.json"},
}

// citationRe finds a citation marker as an answer writes it.
var citationRe = regexp.MustCompile(`\[\d+\]`)

// TestNoCitationInsideCode asks every dev question of the bench corpora
// with no model and renders each extracted answer with a CommonMark
// parser: no code block may hold a citation that the cited passages do
// not hold themselves. A citation written after a closing fence ("``` [1]")
// leaves the block open, and the rest of the answer is read as code.
func TestNoCitationInsideCode(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the bench corpora")
	}
	bench := benchdir.Require(t)
	md := goldmark.New()
	code := 0
	for _, set := range devSets {
		t.Run(set.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(bench, set.gold))
			if err != nil {
				t.Fatal(err)
			}
			var gold []goldQuestion
			if err := json.Unmarshal(data, &gold); err != nil {
				t.Fatal(err)
			}
			f := openIndex(t, filepath.Join(bench, set.corpus), t.TempDir())
			a := &Asker{Search: f.searcher, Channel: search.BM25}
			for _, q := range gold {
				ans, err := a.Ask(context.Background(), Query{Question: q.Query}, nil)
				if err != nil {
					t.Fatal(err)
				}
				src := []byte(ans.Text)
				doc := md.Parser().Parse(text.NewReader(src))
				err = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
					if !entering {
						return gast.WalkContinue, nil
					}
					switch n.Kind() {
					case gast.KindFencedCodeBlock, gast.KindCodeBlock:
					default:
						return gast.WalkContinue, nil
					}
					code++
					lines := n.Lines()
					for i := range lines.Len() {
						seg := lines.At(i)
						line := strings.TrimSpace(string(seg.Value(src)))
						if !citationRe.MatchString(line) || heldByCited(ans, line) {
							continue
						}
						t.Errorf("%q: citation inside code: %q\n%s", q.Query, line, ans.Text)
					}
					return gast.WalkSkipChildren, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				// What the answer renders to must be whole HTML too.
				var out bytes.Buffer
				if err := md.Renderer().Render(&out, src, doc); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	t.Logf("%d code blocks in extracted answers", code)
	if code == 0 && !t.Failed() {
		t.Log("no extracted answer quoted code: the check read nothing")
	}
}

// heldByCited reports whether a code line is the cited passages' own text.
func heldByCited(ans Answer, line string) bool {
	for _, p := range ans.Passages {
		if strings.Contains(p.Text, line) {
			return true
		}
	}
	return false
}
