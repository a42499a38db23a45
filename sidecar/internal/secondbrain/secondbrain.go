// Package secondbrain writes a small second-brain vault for tests: 25
// English notes in a real git repository whose history has fixed dates,
// with daily notes over three weeks, a plan superseded twice (v1 → v2 →
// v3), a broken supersession chain, a STALE note that is still right, an
// older and a newer note on one subject, hub notes over fact-holding
// leaves, and frontmatter dates; and questions about it in the
// questions.json format of second-brain-evals, written beside it.
//
// The questions are written as a user would ask them, from the facts the
// notes hold; nothing is tuned to how Quire ranks today.
package secondbrain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Today is the vault's "now": relative questions ("last week") are asked
// on this day. A Thursday; last week is Monday 23 to Sunday 29 November.
var Today = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// Question is one entry of questions.json, second-brain-evals' format:
// Gold are the vault paths of the notes that carry the fact, Terms the
// protocol's search alternation.
type Question struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Question string   `json:"question"`
	Terms    []string `json:"terms"`
	Gold     []string `json:"gold"`
}

// Vault is what Write made: where, and which notes play which part.
// Paths are vault-relative with "/".
type Vault struct {
	// Dir is the vault, a git repository.
	Dir string
	// QuestionsFile is questions.json, beside Dir (not in the vault).
	QuestionsFile string
	Questions     []Question
	// Notes are every Markdown note, sorted.
	Notes []string
	// LastCommit is each note's last commit date, as git has it.
	LastCommit map[string]time.Time
	// Daily are the daily notes (Daily/YYYY-MM-DD.md), oldest first, and
	// LastWeek those dated in the week before Today's.
	Daily, LastWeek []string
	// Superseded are the plans marked superseded, in chain order, and
	// Successor the current plan at the chain's end.
	Superseded []string
	Successor  string
	// BrokenChain names a successor, BrokenTarget, that does not exist.
	BrokenChain, BrokenTarget string
	// Stale is marked STALE but still right: it must not be demoted.
	Stale string
	// Older and Newer are notes on one subject; Newer states the current
	// state and was committed later.
	Older, Newer string
	// Hubs are the maps of content (many links, few words); their leaves
	// hold the facts.
	Hubs []string
}

// questions are asked on Today. Types: current (the state now), superseded
// (a fact a newer plan replaced), last_week (dates relative to Today),
// overview (what a map note answers), fact (a leaf's fact).
var questions = []Question{
	{"q01", "current", "What laptop do I use now?", []string{"laptop"}, []string{"Laptop setup.md"}},
	{"q02", "current", "Where do my laptop backups go these days?", []string{"backup|restic|Deja Dup"}, []string{"Laptop setup.md"}},
	{"q03", "superseded", "What is the plan for the garden shed?", []string{"shed"}, []string{"Projects/Garden shed/Plan v3.md"}},
	{"q04", "superseded", "How much will the garden shed cost?", []string{"shed", "budget|EUR"}, []string{"Projects/Garden shed/Plan v3.md"}},
	{"q05", "last_week", "What happened with the boiler last week?", []string{"boiler"}, []string{"Daily/2026-11-23.md", "Daily/2026-11-25.md"}},
	{"q06", "last_week", "Who did I have lunch with last week?", []string{"lunch"}, []string{"Daily/2026-11-27.md"}},
	{"q07", "overview", "What projects am I working on?", []string{"project"}, []string{"Projects MOC.md"}},
	{"q08", "overview", "Give me an overview of my notes", []string{"home|index|MOC"}, []string{"Home.md"}},
	{"q09", "fact", "Who is my dentist?", []string{"dentist"}, []string{"Areas/Health/Dentist.md"}},
	{"q10", "fact", "When does the car insurance renew?", []string{"insurance", "renew"}, []string{"Areas/Car.md"}},
	{"q11", "fact", "What tyre pressure does the road bike need?", []string{"tyre|pressure"}, []string{"Areas/Bike maintenance.md"}},
	{"q12", "fact", "What ratio do I feed the sourdough starter at?", []string{"starter", "ratio|1:1:1"}, []string{"Recipes/Sourdough.md"}},
	{"q13", "fact", "What is the wifi network called?", []string{"wifi|network"}, []string{"Areas/Home network.md"}},
	{"q14", "current", "What password manager do I use at the moment?", []string{"password"}, []string{"Laptop setup.md"}},
	{"q15", "current", "Is Firefox still my browser?", []string{"browser|Firefox"}, []string{"Laptop setup.md"}},
}

// Write makes dir/vault (a new git repository holding the notes, each
// commit at its fixed date) and dir/questions.json, and returns the
// Vault. It runs the git program with its own identity and dates and
// with no global or system config read, so the user's git setup neither
// changes nor matters. dir/vault must not exist yet.
func Write(dir string) (Vault, error) {
	v := Vault{
		Dir:           filepath.Join(dir, "vault"),
		QuestionsFile: filepath.Join(dir, "questions.json"),
		Questions:     questions,
		LastCommit:    map[string]time.Time{},
		LastWeek:      []string{"Daily/2026-11-23.md", "Daily/2026-11-25.md", "Daily/2026-11-27.md"},
		Superseded:    []string{"Projects/Garden shed/Plan v1.md", "Projects/Garden shed/Plan v2.md"},
		Successor:     "Projects/Garden shed/Plan v3.md",
		BrokenChain:   "Projects/Newsletter.md",
		BrokenTarget:  "Missing Note",
		Stale:         "Areas/Bike maintenance.md",
		Older:         "Laptop setup 2024.md",
		Newer:         "Laptop setup.md",
		Hubs:          []string{"Home.md", "Projects MOC.md"},
	}
	if err := os.Mkdir(v.Dir, 0o755); err != nil {
		return Vault{}, fmt.Errorf("secondbrain: %w", err)
	}
	if err := git(v.Dir, "", "init", "-q", "-b", "main"); err != nil {
		return Vault{}, err
	}
	for _, c := range history {
		date, err := time.Parse(time.RFC3339, c.date)
		if err != nil {
			return Vault{}, fmt.Errorf("secondbrain: commit %q: %w", c.message, err)
		}
		names := make([]string, 0, len(c.files))
		for name, text := range c.files {
			p := filepath.Join(v.Dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return Vault{}, fmt.Errorf("secondbrain: %w", err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				return Vault{}, fmt.Errorf("secondbrain: %w", err)
			}
			names = append(names, name)
			if strings.HasSuffix(name, ".md") {
				v.LastCommit[name] = date
			}
		}
		sort.Strings(names)
		if err := git(v.Dir, "", append([]string{"add", "--"}, names...)...); err != nil {
			return Vault{}, err
		}
		if err := git(v.Dir, c.date, "commit", "-q", "-m", c.message); err != nil {
			return Vault{}, err
		}
	}
	for name := range v.LastCommit {
		v.Notes = append(v.Notes, name)
		if strings.HasPrefix(name, "Daily/") {
			v.Daily = append(v.Daily, name)
		}
	}
	sort.Strings(v.Notes)
	sort.Strings(v.Daily)
	data, err := json.MarshalIndent(v.Questions, "", "  ")
	if err != nil {
		return Vault{}, err
	}
	if err := os.WriteFile(v.QuestionsFile, append(data, '\n'), 0o644); err != nil {
		return Vault{}, fmt.Errorf("secondbrain: %w", err)
	}
	return v, nil
}

// git runs the git program in dir; a non-empty date is the commit's
// author and committer date. Identity and settings come from -c flags and
// GIT_CONFIG_GLOBAL/GIT_CONFIG_NOSYSTEM keep every config file but the
// repository's own out, so a user's signing or hooks settings cannot
// change (or stop) the history; the caller's GIT_* variables are dropped.
func git(dir, date string, args ...string) error {
	cmd := exec.Command("git", append([]string{
		"-c", "user.name=Second Brain", "-c", "user.email=brain@example.invalid",
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", "-c", "core.hooksPath=/dev/null",
	}, args...)...)
	cmd.Dir = dir
	// GIT_DIR and its kind, set when a test runs inside a git hook,
	// would point git at another repository.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	if date != "" {
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("secondbrain: git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
