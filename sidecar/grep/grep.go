// Package grep searches the current files of the vault (and, given their
// roots, other sources) for a literal string or a regular expression, line
// by line as ripgrep does: no index, so it finds what the keyword index
// cuts apart (host names, numbers, code) in files as they are now. It
// reads only, is bounded in time, matches and file size, and skips what
// the index skips.
package grep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// Rules decide which files of a root are searched; vault.Rules is one.
type Rules interface {
	// Indexable reports whether the root-relative, slash-separated path
	// names a file to search.
	Indexable(rel string) bool
	// SkipDir reports whether a whole folder is left out.
	SkipDir(rel string) bool
}

// Root is one source's folder and the files of it that are searched.
type Root struct {
	Source string // the source id: "vault" for the vault
	Dir    string
	Rules  Rules
	// Hide, when set, leaves out a file the rules admit (a private note
	// for a client off this machine).
	Hide func(rel string) bool
}

// Case is how letter case is matched.
type Case string

// The case rules, ripgrep's: smart is sensitive when the pattern holds an
// upper-case letter, else insensitive.
const (
	Smart     Case = "smart"
	Sensitive Case = "sensitive"
	Ignore    Case = "ignore"
)

// Defaults of Options' bounds.
const (
	DefaultMaxMatches = 1000
	DefaultTimeout    = 10 * time.Second
	DefaultMaxBytes   = 5 << 20
	// MaxContext bounds the context lines asked for on each side.
	MaxContext = 10
	// maxLine bounds a line's text in a match; longer lines are cut,
	// and say so.
	maxLine = 2000
)

// Options are one search.
type Options struct {
	Pattern string
	Regex   bool // a regular expression (Go's RE2 syntax); else a literal string
	Case    Case // "" is Smart
	Context int  // lines shown before and after each match
	Source  string
	// MaxMatches, Timeout and MaxBytes bound the search; 0 takes the
	// default. A file over MaxBytes is skipped and reported.
	MaxMatches int
	Timeout    time.Duration
	MaxBytes   int64
	Workers    int // 0: one per core
}

// Match is one line that matches, with its context.
type Match struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Line   int    `json:"line"` // 1-based
	// Text is the line without its line ending; Spans are the byte
	// ranges of the pattern's matches in it.
	Text   string   `json:"text"`
	Spans  [][2]int `json:"spans"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// Skip is a file left out, and why.
type Skip struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Result is a search's matches in source and path order, then by line.
type Result struct {
	Matches []Match `json:"matches"`
	Files   int     `json:"files"` // files opened, those skipped then among them
	Skipped []Skip  `json:"skipped"`
	// Truncated says the search stopped at MaxMatches; TimedOut that it
	// stopped at its time budget: the matches are then those of the
	// files searched so far.
	Truncated bool   `json:"truncated"`
	TimedOut  bool   `json:"timedOut"`
	Warning   string `json:"warning,omitempty"`
}

// ErrPattern is returned for an empty or invalid pattern, ErrOption for
// another option out of its range.
var (
	ErrPattern = errors.New("bad pattern")
	ErrOption  = errors.New("bad option")
)

// matcher finds the byte ranges of a pattern in a line-oriented buffer.
type matcher struct {
	// lit is the pattern when it is a literal; with re, a literal that
	// every match holds, which finds the lines re is run on (ripgrep's
	// inner literal). It is lowercased when fold.
	lit  []byte
	fold bool           // ASCII case folding of the text before bytes.Index
	re   *regexp.Regexp // a regular expression, or a literal that needs Unicode folding
}

// compile builds the matcher of o.
func compile(o Options) (*matcher, error) {
	if o.Pattern == "" {
		return nil, fmt.Errorf("%w: empty", ErrPattern)
	}
	if strings.ContainsAny(o.Pattern, "\n\r") {
		return nil, fmt.Errorf("%w: a line break: the search is line by line", ErrPattern)
	}
	insensitive := false
	switch o.Case {
	case Sensitive:
	case Ignore:
		insensitive = true
	case Smart, "":
		upper, err := hasUpper(o.Pattern, o.Regex)
		if err != nil {
			return nil, err
		}
		insensitive = !upper
	default:
		return nil, fmt.Errorf("%w: case %q is not smart, sensitive or ignore", ErrOption, o.Case)
	}
	if !o.Regex {
		switch {
		case !insensitive:
			return &matcher{lit: []byte(o.Pattern)}, nil
		case asciiOnly(o.Pattern) && !strings.ContainsAny(o.Pattern, "kKsS"):
			// Unicode folds k and s to the Kelvin and long-s signs too,
			// which ASCII folding would miss.
			return &matcher{lit: []byte(strings.ToLower(o.Pattern)), fold: true}, nil
		}
		o.Pattern = regexp.QuoteMeta(o.Pattern)
	}
	flags := "(?m)"
	if insensitive {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + o.Pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPattern, err)
	}
	lit, fold := required(flags + o.Pattern)
	return &matcher{re: re, lit: lit, fold: fold}, nil
}

// required returns a literal that every match of the regular expression
// holds, the longest of those its top level strings together, and
// whether it is to be found in ASCII-folded text; nil when there is none
// (an alternation at the top, a pattern of classes) or when Unicode case
// folding would be needed to find it.
func required(pattern string) (lit []byte, fold bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, false
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	var best *syntax.Regexp
	for _, p := range parts {
		if p.Op == syntax.OpLiteral && (best == nil || len(p.Rune) > len(best.Rune)) {
			best = p
		}
	}
	if best == nil {
		return nil, false
	}
	s := string(best.Rune)
	if best.Flags&syntax.FoldCase == 0 {
		return []byte(s), false
	}
	if !asciiOnly(s) || strings.ContainsAny(s, "kKsS") {
		return nil, false
	}
	return []byte(strings.ToLower(s)), true
}

// asciiOnly reports whether s is ASCII.
func asciiOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasUpper reports whether the pattern's literal letters include an
// upper-case one (for a regular expression, not those of escapes and
// classes such as \W or \S), which smart case reads as case-sensitive.
func hasUpper(pattern string, regex bool) (bool, error) {
	if !regex {
		return strings.IndexFunc(pattern, unicode.IsUpper) >= 0, nil
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrPattern, err)
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 {
			for _, c := range r.Rune {
				if unicode.IsUpper(c) {
					return true
				}
			}
		}
		for _, s := range r.Sub {
			if walk(s) {
				return true
			}
		}
		return false
	}
	return walk(re), nil
}

// lines returns the matching lines of buf: for each, its start and end
// (before the line break) and the spans of the matches in it. fold is a
// scratch buffer for ASCII folding, returned for reuse.
func (m *matcher) lines(buf, fold []byte, each func(start, end int, spans [][2]int) bool) []byte {
	hay := buf // offsets in hay are offsets in buf
	if m.fold {
		fold = asciiLower(fold[:0], buf)
		hay = fold
	}
	for from := 0; from < len(hay); {
		var at int
		if m.lit != nil {
			i := bytes.Index(hay[from:], m.lit)
			if i < 0 {
				break
			}
			at = from + i
		} else {
			loc := m.re.FindIndex(buf[from:])
			if loc == nil {
				break
			}
			at = from + loc[0]
			if at == len(buf) && buf[at-1] == '\n' {
				break // the end of a file that ends its last line is no line
			}
		}
		start := bytes.LastIndexByte(hay[:at], '\n') + 1
		end := len(hay)
		if i := bytes.IndexByte(hay[at:], '\n'); i >= 0 {
			end = at + i
		}
		// Every match in the line alone: a regular expression's match
		// across a line break (\s, [^x]) is no line's match.
		if spans := m.spans(buf[start:end], hay[start:end]); len(spans) > 0 {
			if !each(start, end, spans) {
				break
			}
		}
		from = end + 1
	}
	return fold
}

// spans are the byte ranges of the matches in one line: line as it is,
// folded as the literal search sees it.
func (m *matcher) spans(line, folded []byte) [][2]int {
	var out [][2]int
	if m.re != nil {
		for _, loc := range m.re.FindAllIndex(line, -1) {
			if loc[1] > loc[0] || len(out) == 0 {
				out = append(out, [2]int{loc[0], loc[1]})
			}
		}
		return out
	}
	for from := 0; ; {
		i := bytes.Index(folded[from:], m.lit)
		if i < 0 {
			return out
		}
		out = append(out, [2]int{from + i, from + i + len(m.lit)})
		from += i + len(m.lit)
	}
}

// asciiLower appends s with its ASCII letters lowercased to dst: the
// same length, so offsets in it are offsets in s.
func asciiLower(dst, s []byte) []byte {
	dst = append(dst, s...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// file is one file to search.
type file struct {
	root *Root
	rel  string
}

// Search searches the roots for o.Pattern.
func Search(ctx context.Context, roots []Root, o Options) (Result, error) {
	m, err := compile(o)
	if err != nil {
		return Result{}, err
	}
	if o.Context < 0 || o.Context > MaxContext {
		return Result{}, fmt.Errorf("%w: context %d is not between 0 and %d lines", ErrOption, o.Context, MaxContext)
	}
	if o.MaxMatches <= 0 {
		o.MaxMatches = DefaultMaxMatches
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var res Result
	var files []file
	known := false
	for i := range roots {
		r := &roots[i]
		if o.Source != "" && r.Source != o.Source {
			continue
		}
		known = true
		if st, err := os.Stat(r.Dir); err != nil || !st.IsDir() {
			// A source whose folder is gone (or not made yet) leaves the
			// others to search.
			res.Skipped = append(res.Skipped, Skip{Source: r.Source, Reason: "no folder to search at " + r.Dir})
			continue
		}
		fs, skips, err := list(ctx, r)
		if err != nil {
			return Result{}, err
		}
		files = append(files, fs...)
		res.Skipped = append(res.Skipped, skips...)
	}
	if !known {
		return Result{}, fmt.Errorf("%w: source %q: no such source", ErrOption, o.Source)
	}
	found := make([][]Match, len(files))
	var next, total atomic.Int64
	var skipMu sync.Mutex
	var wg sync.WaitGroup
	for range min(o.Workers, max(len(files), 1)) {
		wg.Go(func() {
			var buf, fold []byte
			for {
				if ctx.Err() != nil || total.Load() >= int64(o.MaxMatches) {
					return
				}
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				f := files[i]
				var skip string
				buf, fold, found[i], skip = searchFile(f, m, o, buf, fold)
				if skip != "" {
					skipMu.Lock()
					res.Skipped = append(res.Skipped, Skip{Source: f.root.Source, Path: f.rel, Reason: skip})
					skipMu.Unlock()
				}
				total.Add(int64(len(found[i])))
			}
		})
	}
	wg.Wait()
	// Files are claimed in order and each one claimed is searched to its
	// end, so the files searched are a prefix of the list: its first
	// MaxMatches matches are the same whatever the workers' timing.
	res.Files = min(int(next.Load()), len(files))
	for _, ms := range found[:res.Files] {
		res.Matches = append(res.Matches, ms...)
	}
	if len(res.Matches) > o.MaxMatches || len(res.Matches) == o.MaxMatches && res.Files < len(files) {
		res.Matches, res.Truncated = res.Matches[:o.MaxMatches], true
		res.Warning = fmt.Sprintf("stopped at %d matching lines: narrow the pattern or raise the limit", o.MaxMatches)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
		res.Warning = fmt.Sprintf("stopped after %s, with %d files searched: narrow the pattern or the source, or raise the time", o.Timeout, res.Files)
	}
	sort.Slice(res.Skipped, func(i, j int) bool {
		a, b := res.Skipped[i], res.Skipped[j]
		return a.Source < b.Source || a.Source == b.Source && a.Path < b.Path
	})
	return res, nil
}

// list walks a root: the files to search, in path order, and the folders
// left out for being unreadable. When ctx ends it returns the files found
// so far. It reads folders only: the workers open the files, and find
// their size as they read them.
func list(ctx context.Context, r *Root) ([]file, []Skip, error) {
	var out []file
	var skips []Skip
	err := filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return filepath.SkipAll // the time is up: search what was listed
		}
		rel, _ := filepath.Rel(r.Dir, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == r.Dir {
				return err
			}
			skips = append(skips, Skip{Source: r.Source, Path: rel, Reason: "unreadable: " + err.Error()})
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if rel != "." && r.Rules.SkipDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !r.Rules.Indexable(rel) || r.Hide != nil && r.Hide(rel) {
			return nil
		}
		if d.Type().IsRegular() { // a symbolic link could leave the root
			out = append(out, file{root: r, rel: rel})
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("source %s: walk %s: %w", r.Source, r.Dir, err)
	}
	return out, skips, nil
}

// searchFile reads one file into buf and returns its matches, or why it
// was skipped: unreadable, over the size cap, binary (a NUL byte) or not
// UTF-8, as the index skips them.
func searchFile(f file, m *matcher, o Options, buf, fold []byte) (_, _ []byte, _ []Match, skip string) {
	buf, skip = readInto(filepath.Join(f.root.Dir, filepath.FromSlash(f.rel)), buf, o.MaxBytes)
	switch {
	case skip != "":
		return buf, fold, nil, skip
	case bytes.IndexByte(buf, 0) >= 0:
		return buf, fold, nil, "binary: holds a NUL byte"
	case !utf8.Valid(buf):
		return buf, fold, nil, "not UTF-8"
	}
	var out []Match
	lineNo, counted := 1, 0
	fold = m.lines(buf, fold, func(start, end int, spans [][2]int) bool {
		lineNo += bytes.Count(buf[counted:start], []byte{'\n'})
		counted = start
		text := bytes.TrimSuffix(buf[start:end], []byte{'\r'})
		mt := Match{Source: f.root.Source, Path: f.rel, Line: lineNo, Text: cut(text), Spans: spans}
		if o.Context > 0 {
			mt.Before, mt.After = around(buf, start, end, o.Context)
		}
		out = append(out, mt)
		return len(out) <= o.MaxMatches // one past the cap says there are more
	})
	return buf, fold, out, ""
}

// around returns up to n lines before the line [start, end) and after it.
func around(buf []byte, start, end, n int) (before, after []string) {
	for i, at := 0, start; i < n && at > 0; i++ {
		ls := bytes.LastIndexByte(buf[:at-1], '\n') + 1
		before = append(before, cut(bytes.TrimSuffix(buf[ls:at-1], []byte{'\r'})))
		at = ls
	}
	for i, j := 0, len(before)-1; i < j; i, j = i+1, j-1 {
		before[i], before[j] = before[j], before[i]
	}
	// at is the line break that ends the line before; after the last
	// one there is no line.
	for i, at := 0, end; i < n && at+1 < len(buf); i++ {
		le := len(buf)
		if k := bytes.IndexByte(buf[at+1:], '\n'); k >= 0 {
			le = at + 1 + k
		}
		after = append(after, cut(bytes.TrimSuffix(buf[at+1:le], []byte{'\r'})))
		at = le
	}
	return before, after
}

// cut shortens a line past maxLine bytes, at a character boundary.
func cut(b []byte) string {
	if len(b) <= maxLine {
		return string(b)
	}
	i := maxLine
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return string(b[:i]) + "…"
}
