package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// flagLine is a flag as flag.PrintDefaults lists it: its name and the
// type of its value (none for a bool). A backquoted word in the flag's
// text would take the type's place ("-idle quire mcp").
var flagLine = regexp.MustCompile(`(?m)^  -(\S+)(?: (.+))?$`)

// Issue 25: `quire CMD --help` exited 2 with "flag: help requested" and
// the whole usage, without saying what the command does; the usage
// missed flags the commands take.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			out, err := runCLI(t, c.name, "--help")
			if code := report(&bytes.Buffer{}, err, false); code != 0 {
				t.Fatalf("--help: exit %d (%v), want 0", code, err)
			}
			if !strings.HasPrefix(out, "Usage: quire "+c.name+" ") || !strings.Contains(out, c.about) {
				t.Errorf("--help says:\n%s\nwant its synopsis and what it does", out)
			}
			if strings.Contains(out, "quire — a local companion") {
				t.Errorf("--help repeats the whole usage:\n%s", out)
			}
			flags := flagLine.FindAllStringSubmatch(out, -1)
			if len(flags) == 0 {
				t.Fatalf("--help lists no flag:\n%s", out)
			}
			for _, f := range flags {
				if f[1] == "test-hosts" {
					continue // test builds only
				}
				if !strings.Contains(c.synopsis, "--"+f[1]) {
					t.Errorf("the usage of %s misses --%s", c.name, f[1])
				}
				switch f[2] {
				case "", "string", "int", "duration", "value", "float":
				default:
					t.Errorf("--%s reads as taking %q: a backquote in its text", f[1], f[2])
				}
			}
		})
	}
	// -h too, and after other flags.
	if _, err := runCLI(t, "search", "--k", "3", "-h"); !errors.Is(err, errHelp) {
		t.Errorf("search --k 3 -h: %v, want the help", err)
	}
}

// Ctrl-C while a command works is not reported as its error: the work
// done is kept, and the exit code says it was interrupted.
func TestInterruptReported(t *testing.T) {
	var w bytes.Buffer
	err := fmt.Errorf("embed: embed: %w", context.Canceled)
	if code := report(&w, err, true); code != 130 || !strings.Contains(w.String(), "interrupted") || strings.Contains(w.String(), "context canceled") {
		t.Errorf("interrupted: exit %d, %q", code, w.String())
	}
	w.Reset()
	if code := report(&w, err, false); code != 1 || !strings.Contains(w.String(), "context canceled") {
		t.Errorf("canceled without a signal: exit %d, %q; want it reported", code, w.String())
	}
}

// Issue 25: every --json speaks the protocol's key style, camelCase
// ("tookMs", "headingPath"): doctor printed Go's field names, Name and OK.
// (quire eval's figures keep the snake_case of shared/bench's gold files
// and of the eval logs already written.)
func TestJSONKeysCamelCase(t *testing.T) {
	v := writeVault(t)
	for _, args := range [][]string{
		{"index", "--vault", v, "--json"},
		{"search", "--vault", v, "--json", "curdles"},
		{"ask", "--vault", v, "--json", "What curdles milk?"},
		{"status", "--vault", v, "--json"},
		{"doctor", "--vault", v, "--json"},
		{"lint", "--vault", v, "--json"},
		{"version", "--json"},
	} {
		out, _ := runCLI(t, args...)
		var doc any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Errorf("%s --json: %v\n%s", args[0], err, out)
			continue
		}
		for _, k := range jsonKeys(doc, nil) {
			if !camelKey.MatchString(k) {
				t.Errorf("%s --json: key %q is not camelCase", args[0], k)
			}
		}
	}
}

var camelKey = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

// jsonKeys lists the object keys of a decoded JSON document, each once.
func jsonKeys(doc any, seen map[string]bool) []string {
	if seen == nil {
		seen = map[string]bool{}
	}
	var out []string
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
			out = append(out, jsonKeys(v, seen)...)
		}
	case []any:
		for _, v := range d {
			out = append(out, jsonKeys(v, seen)...)
		}
	}
	return out
}

// Issue 25: quire index while a sidecar serves the vault was refused the
// lock with no word on how to reindex, and status --json through the
// sidecar said vectors: 0. Now index reports the sidecar's counts (and
// --rebuild has it rebuild), and status counts the vectors it holds.
func TestIndexThroughSidecar(t *testing.T) {
	v, st := writeVault(t), t.TempDir()
	if _, err := runCLI(t, "index", "--vault", v, "--state", st); err != nil {
		t.Fatal(err)
	}
	c := startQuire(t, "serve", "--vault", v, "--state", st, "--port", "0")
	cl, _ := attachTo(t, c, st)
	waitIdle(t, cl, 20*time.Second)
	for _, args := range [][]string{{}, {"--rebuild"}} {
		out, err := runCLI(t, append([]string{"index", "--vault", v, "--state", st, "--json"}, args...)...)
		var got struct {
			Notes   int `json:"notes"`
			Vectors struct {
				Embedded int `json:"embedded"`
			} `json:"vectors"`
		}
		if err == nil {
			err = json.Unmarshal([]byte(out), &got)
		}
		if err != nil || got.Notes != 2 || got.Vectors.Embedded != 2 {
			t.Errorf("index %v with a sidecar running: %v, %s; want its counts (2 notes, 2 vectors)", args, err, out)
		}
	}
	out, err := runCLI(t, "status", "--vault", v, "--state", st, "--json")
	var status struct {
		Vectors struct {
			Vectors int `json:"vectors"`
		} `json:"vectors"`
	}
	if err == nil {
		err = json.Unmarshal([]byte(out), &status)
	}
	if err != nil || status.Vectors.Vectors != 2 {
		t.Errorf("status --json through the sidecar: %v, %s; want 2 vectors", err, out)
	}
}
