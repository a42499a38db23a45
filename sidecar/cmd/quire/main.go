// Command quire is the Quire sidecar and its command line: it indexes an
// Obsidian vault, searches it, evaluates retrieval and serves the plugin.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/quire-app/quire/sidecar/state"
)

const usage = `quire — a local companion for an Obsidian vault

Usage:
  quire index  --vault DIR [--state DIR] [--json]
  quire search --vault DIR [--state DIR] [--k N] [--channel bm25] [--json] QUERY
  quire ask    --vault DIR [--state DIR] [--k N] [--folder DIR] [--tag TAG] [--json] [--save] QUESTION
  quire status --vault DIR [--state DIR] [--json]
  quire eval   --vault DIR --gold FILE [--state DIR] [--k 5] [--channel bm25[,hybrid]] [--json] [--misses]
               [--name NAME] [--control NAME] [--decide] [--report OUT.html] [--log FILE]
               [--ask [--unanswerable FILE]]
  quire serve  --vault DIR [--state DIR] [--port N] [--parent-pid N] [--idle DURATION]
  quire ingest --vault DIR [--state DIR] [--resummarise] URL|FILE...
  quire doctor --vault DIR [--state DIR] [--json]
  quire lint   --vault DIR [--state DIR] [--dry-run] [--json]
  quire mcp    --vault DIR [--state DIR] [--http 127.0.0.1:PORT] [--token T] [--sidecar-idle 30s]
  quire version [--json]

--state is where the index lives (default <vault>/.quire; for a read-only
vault, a folder in the user cache directory).
`

// exitError carries an exit code: 2 for usage errors.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// exitLocked is the exit code when the vault or its state folder is in
// use by another quire: the plugin, which starts an engine to find out
// whether the lock is free, then attaches to that one instead of counting
// a crash.
const exitLocked = 3

func usageErr(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

// memoryLimit is the heap size past which the collector works harder
// (GOMEMLIMIT overrides it): without it a cold index of 100,000 passages
// peaked just over 600 MB, mostly garbage waiting for the next cycle.
const memoryLimit = 480 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "quire:", shown(err.Error()))
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.code == 2 {
				fmt.Fprint(os.Stderr, "\n"+usage)
			}
			os.Exit(ee.code)
		}
		if errors.Is(err, state.ErrLocked) {
			os.Exit(exitLocked)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Print(usage)
		return nil
	}
	cmds := map[string]func(context.Context, []string) error{
		"index":   cmdIndex,
		"search":  cmdSearch,
		"ask":     cmdAsk,
		"status":  cmdStatus,
		"eval":    cmdEval,
		"serve":   cmdServe,
		"doctor":  cmdDoctor,
		"ingest":  cmdIngest,
		"lint":    cmdLint,
		"mcp":     cmdMCP,
		"version": cmdVersion,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		return usageErr("unknown command %q", args[0])
	}
	// Another command that finds the vault locked then names this one.
	state.SetHolder("quire " + args[0])
	return cmd(ctx, args[1:])
}

// common holds the flags every command takes.
type common struct {
	vault, state string
	json         bool
}

func newFlags(name string, c *common) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.StringVar(&c.vault, "vault", "", "vault folder")
	fs.StringVar(&c.state, "state", "", "state folder (default <vault>/.quire)")
	fs.BoolVar(&c.json, "json", false, "print one JSON document")
	return fs
}

// parse parses flags, allowing them after positional arguments too
// (`quire search cheese --k 3`).
func parse(fs *flag.FlagSet, c *common, args []string) ([]string, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if c.vault == "" {
		return nil, usageErr("--vault is required")
	}
	return pos, nil
}

// parseFlags is parse for a command that may need no vault.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, &exitError{code: 2, err: err}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return pos, nil
}
