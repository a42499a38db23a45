package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"
)

// LogEntry is one line of <state>/evals.jsonl.
type LogEntry struct {
	Time   time.Time      `json:"time"`
	Commit string         `json:"commit"`
	Gold   string         `json:"gold"`
	Config map[string]any `json:"config"`
	Report *Report        `json:"report"`
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
