package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one command's line in the usage and what its own --help says.
type command struct {
	name, synopsis, about string
}

// commands lists the commands in the order the usage shows them. The
// top-level usage is made of their synopses, so that a flag added to a
// command and to its synopsis shows in both places.
var commands = []command{
	{"index", "--vault DIR [--state DIR] [--rebuild] [--json]",
		"Index the vault: keywords, then vectors for search by meaning. Only notes changed since the last\n" +
			"pass are read again, every note with --rebuild. While a sidecar serves the vault it keeps the\n" +
			"index current itself: quire index then prints its counts, and --rebuild has it rebuild."},
	{"search", "--vault DIR [--state DIR] [--k N] [--channel bm25|dense|hybrid] [--explain] [--json] QUERY",
		"Print the passages that best match QUERY: note, heading path, snippet, score. With no --channel,\n" +
			"hybrid once vectors exist, as in the plugin, ask and MCP. Answers through the running sidecar\n" +
			"when one serves the vault."},
	{"ask", "--vault DIR [--state DIR] [--k N] [--folder DIR] [--tag TAG] [--json] [--save] QUESTION",
		"Answer QUESTION from the vault with citations: with the configured model, or with the closest\n" +
			"sentences quoted when there is none. A question the notes do not answer gets a refusal."},
	{"grep", "--vault DIR [--state DIR] [--regex] [--case smart|sensitive|ignore] [--context N] [--source ID]\n" +
		"                [--max N] [--timeout 10s] [--json] PATTERN",
		"Print the lines of the vault's notes that hold PATTERN, a literal string (a regular expression with\n" +
			"--regex), as they are now: path:line:text. Reads the files, not the index. Exits 1 when no line matches."},
	{"status", "--vault DIR [--state DIR] [--json]",
		"Say what the index holds: notes, passages, vector coverage, languages, skipped notes, the model."},
	{"sources", "--vault DIR [--state DIR] [--sync] [--json]",
		"List the vault and the git and folder sources of config.yaml: kind, revision indexed, notes,\n" +
			"passages, vectors, last fetch, errors. --sync brings them up to date first (fetching mirrors)."},
	{"toc", "--vault DIR [--state DIR] [--source ID] [--json]",
		"Print a source's table of contents from the index: folder, note, title, tags, headings."},
	{"eval", "--vault DIR --gold FILE [--state DIR] [--k 5] [--channel bm25[,hybrid]] [--rerank off|builtin|endpoint]\n" +
		"                [--rewrite] [--misses] [--json] [--name NAME] [--set NAME] [--control NAME] [--decide]\n" +
		"                [--report OUT.html] [--log FILE] [--ask [--unanswerable FILE]]",
		"Score retrieval (or, with --ask, extracted answers) on a gold file, per channel and question type,\n" +
			"and append the run to the eval log."},
	{"serve", "--vault DIR [--state DIR] [--port N] [--parent-pid N] [--idle DURATION]",
		"Run the sidecar: serve the plugin and the command line on 127.0.0.1, index the vault and keep the\n" +
			"index current until interrupted."},
	{"ingest", "--vault DIR [--state DIR] [--resummarise] URL|FILE...",
		"Turn web pages and files into source notes under Quire/, through the running sidecar when there\n" +
			"is one. Exits 1 if any source failed."},
	{"doctor", "--vault DIR [--state DIR] [--json]",
		"Check the configured models and reranker with a tiny call each and say what to fix."},
	{"lint", "--vault DIR [--state DIR] [--dry-run] [--json]",
		"Check the notes Quire wrote (links, citations, duplicates, frontmatter) and write Quire/Lint.md\n" +
			"and review items. Exits 1 when something is found."},
	{"reingest", "--vault DIR [--state DIR] [--dry-run] [--json] [NOTE...]",
		"Rebuild the source notes written in an older note layout from their originals in Quire/raw, keeping\n" +
			"their titles; a note you edited is not overwritten, its new version goes to review. Run it again\n" +
			"after a stop to finish. Needs the vault free: close Obsidian first. Exits 1 if a note was not rebuilt."},
	{"bench", "--vault DIR [--state DIR] [--models NAME,...] [--json] [FILE...]",
		"Read the same few sources (the files named, or the newest originals in Quire/raw) with each model\n" +
			"and print a table to choose one by: replies valid JSON at once, quotes and terms kept by the checks,\n" +
			"the summary's language, time and tokens. Writes nothing to the vault."},
	{"mcp", "--vault DIR [--state DIR] [--http 127.0.0.1:PORT] [--token T] [--no-auth] [--allow-origin ORIGIN]\n" +
		"                [--sidecar-idle 30s]",
		"Serve the vault to MCP clients over stdio, or over Streamable HTTP with --http, through the\n" +
			"vault's sidecar (started and shared when none runs)."},
	{"version", "[--json]",
		"Print this binary's version, commit, build date, system and protocol range."},
}

// usage is the top-level help.
var usage = func() string {
	var b strings.Builder
	b.WriteString("quire — a local companion for an Obsidian vault\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  quire %-9s%s\n", c.name, c.synopsis)
	}
	b.WriteString("\n--state is where the index lives (default <vault>/.quire; for a read-only\n" +
		"vault, a folder in the user cache directory).\n" +
		"`quire COMMAND --help` says what a command does and lists its flags.\n")
	return b.String()
}()

// errHelp is returned after a command's --help was printed: exit 0.
var errHelp = errors.New("help printed")

// printHelp prints a command's own help to w: its synopsis, what it does
// and its flags.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	for _, c := range commands {
		if c.name == fs.Name() {
			fmt.Fprintf(w, "Usage: quire %s %s\n\n%s\n\nFlags:\n", c.name, c.synopsis, c.about)
		}
	}
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parseHelp parses args into fs; -h, -help and --help print the
// command's help to stdout and return errHelp.
func parseHelp(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard) // main prints the error, once
	fs.Usage = func() {}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(os.Stdout, fs)
		return errHelp
	}
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("%s: %w", fs.Name(), err)}
	}
	return nil
}
