// Command quire is the Quire sidecar and its command line: it indexes an
// Obsidian vault, searches it, evaluates retrieval and serves the plugin.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/quire-app/quire/sidecar/state"
)

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
	stopProfile := startProfile()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stopProfile()
	interrupted := ctx.Err() != nil
	stop()
	if code := report(os.Stderr, err, interrupted); code != 0 {
		os.Exit(code)
	}
}

// startProfile writes a CPU profile of the whole command to the file
// QUIRE_CPUPROFILE names, for measuring start-up (`go tool pprof`); it
// returns what stops it.
func startProfile() func() {
	path := os.Getenv("QUIRE_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quire: QUIRE_CPUPROFILE:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// report prints what a command's error means to w and returns the exit
// code: 0 for none or a help printed, 2 for usage errors (with the usage),
// 3 for a vault locked by another quire, 130 for Ctrl-C, 1 otherwise.
func report(w io.Writer, err error, interrupted bool) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	if interrupted && errors.Is(err, context.Canceled) {
		// Ctrl-C is no failure to report as one ("embed: embed: context
		// canceled"): what was done is kept (notes indexed, vectors
		// written), and the next pass goes on from there.
		fmt.Fprintln(w, "quire: interrupted; the work done so far is kept")
		return 130
	}
	fmt.Fprintln(w, "quire:", shown(err.Error()))
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.code == 2 {
			fmt.Fprint(w, "\n"+usage)
		}
		return ee.code
	}
	if errors.Is(err, state.ErrLocked) {
		return exitLocked
	}
	return 1
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
		"index":    cmdIndex,
		"search":   cmdSearch,
		"ask":      cmdAsk,
		"status":   cmdStatus,
		"sources":  cmdSources,
		"toc":      cmdTOC,
		"eval":     cmdEval,
		"serve":    cmdServe,
		"doctor":   cmdDoctor,
		"ingest":   cmdIngest,
		"lint":     cmdLint,
		"reingest": cmdReingest,
		"bench":    cmdBench,
		"grep":     cmdGrep,
		"mcp":      cmdMCP,
		"version":  cmdVersion,
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
	fs.StringVar(&c.vault, "vault", "", "vault folder")
	fs.StringVar(&c.state, "state", "", "state folder (default <vault>/.quire)")
	switch name {
	case "serve", "mcp", "ingest": // they print no document
	default:
		fs.BoolVar(&c.json, "json", false, "print one JSON document")
	}
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
		if err := parseHelp(fs, args); err != nil {
			return nil, err
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
