package grep

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/internal/benchdir"
	"github.com/quire-app/quire/sidecar/vault"
)

// corpora are the bench vaults both searches read in place.
var corpora = []string{"jbranchaud-til/corpus", "appunti/corpus", "obsidian-help/corpus-multi", "ariostea-wiki/corpus"}

// ripgrepArgs make rg search what Search does: Markdown files (any case
// of .md) but drawings, no dot folders (rg's default), every file whatever
// ignore files say, smart case. TestSameMatchesAsRipgrep and
// scripts/bench-grep run it so.
var ripgrepArgs = []string{"--no-config", "--no-ignore", "--iglob", "*.md", "--iglob", "!*.excalidraw.md", "--smart-case"}

// patterns are literal strings and regular expressions of the kinds people
// grep notes for: words, names, numbers, code, anchors.
var patterns = []struct {
	pattern string
	regex   bool
}{
	{"the", false}, {"Obsidian", false}, {"git log", false}, {"1.", false}, {"http://", false},
	{"(", false}, {"città", false}, {"ČESKÝ", false}, {"#", false},
	{`\b[0-9]{1,3}(\.[0-9]{1,3}){3}\b`, true}, {`v[0-9]+\.[0-9]+`, true}, {`^#+ `, true},
	{`[a-z]+_[a-z]+`, true}, {`\bTODO\b|FIXME`, true}, {`[ \t]+$`, true}, {`^$`, true},
}

// TestSameMatchesAsRipgrep compares Search with ripgrep on the bench
// corpora: the same files, lines and text for every pattern. It is
// skipped where rg is not installed.
func TestSameMatchesAsRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed (apt-get install ripgrep)")
	}
	for _, c := range corpora {
		dir := benchdir.Require(t, filepath.FromSlash(c))
		root := Root{Source: "vault", Dir: dir, Rules: vault.NewRules(dir, nil, 0)}
		for _, p := range patterns {
			res, err := Search(context.Background(), []Root{root}, Options{Pattern: p.pattern, Regex: p.regex, MaxMatches: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Skipped) > 0 {
				t.Fatalf("%s: skipped %v: the comparison needs every file searched", c, res.Skipped)
			}
			got := lines(res.Matches)
			want := ripgrep(t, rg, dir, p.pattern, p.regex, excludes(dir)...)
			sort.Strings(got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %q: %d lines, rg %d; first difference: %s", c, p.pattern, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

// excludes are rg's arguments for the folders the vault's Obsidian
// settings leave out (its templates folder, its excluded files).
func excludes(dir string) []string {
	prefixes, _ := vault.ObsidianExcludes(dir)
	var out []string
	for _, p := range prefixes {
		out = append(out, "--glob", "!"+strings.TrimSuffix(p, "/"))
	}
	return out
}

// ripgrep returns rg's matching lines in dir as path:line:text, sorted,
// their text cut as Search cuts it.
func ripgrep(t *testing.T, rg, dir, pattern string, regex bool, extra ...string) []string {
	args := append(append(append([]string{}, ripgrepArgs...), extra...), "--json")
	if !regex {
		args = append(args, "--fixed-strings")
	}
	cmd := exec.Command(rg, append(args, "--", pattern, ".")...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 { // 1: no match
		t.Fatalf("rg %q: %v", pattern, err)
	}
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m struct {
			Type string
			Data struct {
				Path       struct{ Text string }
				Lines      struct{ Text string }
				LineNumber int `json:"line_number"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m.Type != "match" {
			continue
		}
		text := cut([]byte(strings.TrimSuffix(strings.TrimSuffix(m.Data.Lines.Text, "\n"), "\r")))
		got = append(got, strings.TrimPrefix(m.Data.Path.Text, "./")+":"+strconv.Itoa(m.Data.LineNumber)+":"+text)
	}
	sort.Strings(got)
	return got
}

func firstDiff(a, b []string) string {
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			return strconv.Quote(a[i]) + " against rg's " + strconv.Quote(b[i])
		}
	}
	if len(a) > len(b) {
		return "only here: " + strconv.Quote(a[len(b)])
	}
	if len(b) > len(a) {
		return "only rg's: " + strconv.Quote(b[len(a)])
	}
	return "none"
}
