package eval

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// LogEntry is one line of <state>/evals.jsonl: one channel of one run.
// A run of several channels logs one entry per channel under one name.
type LogEntry struct {
	Time time.Time `json:"time"`
	// Name is what --name called the run; --control finds it by that.
	Name string `json:"name,omitempty"`
	// Set names the question set ("ariostea"); by default the gold
	// file's base name.
	Set     string `json:"set,omitempty"`
	Version string `json:"version,omitempty"`
	Commit  string `json:"commit"`
	Gold    string `json:"gold"`
	// GoldHash is the SHA-256 of the gold file's bytes: runs compare
	// only on the same questions.
	GoldHash string  `json:"gold_sha256,omitempty"`
	Config   Ranking `json:"config"`
	Report   *Report `json:"report"`
}

// Ranking is the configuration a run's order depends on.
type Ranking struct {
	Channel string `json:"channel"`
	K       int    `json:"k"`
	Rerank  string `json:"rerank"`
	Rewrite bool   `json:"rewrite"`
	Model   string `json:"model"`
	// Fusion is how the keyword and dense pools are read and merged.
	Fusion Fusion `json:"fusion"`
	// Fields weigh a keyword match in title, aliases and headings.
	Fields Fields `json:"fields"`
	// Fingerprint is the index's: schema, chunking and analysis.
	Fingerprint string `json:"fingerprint"`
	// Markdown and Analysis version how passages are cut and analysed.
	Markdown string `json:"markdown,omitempty"`
	Analysis string `json:"analysis,omitempty"`
	Chunk    Chunk  `json:"chunk"`
	Embedder string `json:"embedder,omitempty"`
}

// Fusion is search's fusion and query settings.
type Fusion struct {
	DenseWeight    float64 `json:"dense_weight"`
	Pool           int     `json:"pool"`
	PerNote        int     `json:"per_note"`
	Coordination   string  `json:"coordination"`
	PreferLanguage float64 `json:"prefer_language"`
	Synonyms       bool    `json:"synonyms"`
}

// Fields are the keyword fields' weights.
type Fields struct {
	Title    float64 `json:"title"`
	Aliases  float64 `json:"aliases"`
	Headings float64 `json:"headings"`
	Separate bool    `json:"separate"`
	Exact    float64 `json:"exact"`
}

// Chunk is the chunking parameters. The names are the config struct's,
// as the log had them before.
type Chunk struct {
	MaxTokens     int `json:"MaxTokens"`
	OverlapTokens int `json:"OverlapTokens"`
	MinTokens     int `json:"MinTokens"`
}

// Append adds one run to the log file, creating it if needed.
func Append(path string, e LogEntry) error {
	if e.Commit == "" {
		e.Commit = Commit()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open eval log: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write eval log: %w", err)
	}
	return f.Close()
}

// ReadLog reads an eval log: <state>/evals.jsonl, or the file
// scripts/eval-all's runs append to with --log. A missing file is an
// empty log; a line that is not an entry is an error naming it.
func ReadLog(path string) ([]LogEntry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read eval log: %w", err)
	}
	var out []LogEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e LogEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if e.Report == nil {
			return nil, fmt.Errorf("%s:%d: no report", path, n)
		}
		if e.Set == "" {
			e.Set = DefaultSet(e.Gold)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// DefaultSet names a run's questions when --set did not: the gold
// file's name without its extension.
func DefaultSet(gold string) string {
	return strings.TrimSuffix(filepath.Base(gold), filepath.Ext(gold))
}

// HashFile is the SHA-256 of a file's bytes, in hex.
func HashFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// Commit returns the git commit the binary was built from, or the working
// directory's HEAD when the build did not record one (go run, go test).
func Commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
