package proto

// Lint message types.
const (
	TypeLintRun    = "lint.run"
	TypeLintResult = "lint.result"
)

// LintRun asks the sidecar to check the notes Quire wrote (links that no
// longer resolve, pages no source cites, pages naming the same thing,
// missing originals, unreadable frontmatter, index.md out of step, pages
// too long for a model). It writes the report note and a review item for
// each defect that needs a decision; nothing else is changed.
type LintRun struct {
	// DryRun only looks: no report, no review item.
	DryRun bool `json:"dryRun,omitempty"`
}

// LintResult answers a lint.run.
type LintResult struct {
	// Notes is how many notes of the generated folder were checked.
	Notes int `json:"notes"`
	// Defects lists what was found, by check, then note.
	Defects []LintDefect `json:"defects"`
	// Report is the report note's vault path, absent when it was not
	// written (a dry run, or the user edited it: see Warning).
	Report string `json:"report,omitempty"`
	// Review lists the review items this run created.
	Review []string `json:"review"`
	// Warning says why the report was not written.
	Warning string `json:"warning,omitempty"`
}

// LintDefect is one thing lint found.
type LintDefect struct {
	// Check is the check that found it: broken-link, orphan, duplicate,
	// missing-raw, frontmatter, index, oversize or old-layout.
	Check string `json:"check"`
	// Note is the note at fault, vault-relative.
	Note string `json:"note"`
	// Detail says what is wrong, in a sentence.
	Detail string `json:"detail"`
	// Target is the link that resolves to nothing, or the other page of a
	// duplicate.
	Target string `json:"target,omitempty"`
	// Review is the review item about it, absent when the report only
	// lists it.
	Review string `json:"review,omitempty"`
}
