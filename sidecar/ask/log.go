package ask

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LogName is the ask log's file name in the state folder.
const LogName = "asks.jsonl"

// LogEntry is one line of asks.jsonl.
type LogEntry struct {
	Time      time.Time `json:"time"`
	Question  string    `json:"question"`
	Lang      string    `json:"lang"`
	Channel   string    `json:"channel"`
	Passages  []string  `json:"passages"`  // ids given, in order [1]…[n]
	Citations []string  `json:"citations"` // ids kept
	// Invented counts the citation numbers removed because no such passage
	// was given.
	Invented      int    `json:"invented"`
	FlaggedQuotes int    `json:"flaggedQuotes"`
	Grounded      bool   `json:"grounded"`
	Refused       bool   `json:"refused"`
	Extracted     bool   `json:"extracted"`
	Model         string `json:"model,omitempty"`
	Remote        bool   `json:"remote,omitempty"`
	InputTokens   int    `json:"inputTokens"`
	OutputTokens  int    `json:"outputTokens"`
	ContextTokens int    `json:"contextTokens"`
	// Turns counts the earlier turns of the conversation given with a
	// follow-up.
	Turns int `json:"turns,omitempty"`
	// Folder, Tag and Note are the scope the question was narrowed to.
	Folder   string   `json:"folder,omitempty"`
	Tag      string   `json:"tag,omitempty"`
	Note     string   `json:"note,omitempty"`
	Ms       float64  `json:"ms"`
	Warnings []string `json:"warnings,omitempty"`
}

func entryOf(a Answer, at time.Time) LogEntry {
	e := LogEntry{
		Time: at.UTC(), Question: a.Question, Lang: string(a.Lang), Channel: string(a.Channel),
		Passages: make([]string, len(a.Passages)), Citations: make([]string, len(a.Citations)),
		Invented: a.Dropped, FlaggedQuotes: a.FlaggedQuotes(), Grounded: a.Grounded, Refused: a.Refused,
		Extracted: a.Extracted, Model: a.Model, Remote: a.Remote, InputTokens: a.InputTokens, OutputTokens: a.OutputTokens,
		ContextTokens: a.ContextTokens, Turns: len(a.History), Ms: float64(a.Took.Microseconds()) / 1000, Warnings: a.Warnings,
		Folder: a.Scope.Folder, Tag: a.Scope.Tag, Note: a.Scope.Note,
	}
	for i, p := range a.Passages {
		e.Passages[i] = p.ID
	}
	for i, c := range a.Citations {
		e.Citations[i] = c.ID
	}
	return e
}

// log appends the answer to the ask log. One write per line, under a
// mutex, with O_APPEND: lines from concurrent questions never interleave.
func (a *Asker) log(ans Answer) error {
	if a.Log == "" {
		return nil
	}
	line, err := json.Marshal(entryOf(ans, a.now()))
	if err != nil {
		return fmt.Errorf("ask log: %w", err)
	}
	line = append(line, '\n')
	a.logMu.Lock()
	defer a.logMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(a.Log), 0o755); err != nil {
		return fmt.Errorf("ask log: %w", err)
	}
	f, err := os.OpenFile(a.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("ask log: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("ask log: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("ask log: %w", err)
	}
	return nil
}
