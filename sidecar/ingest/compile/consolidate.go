package compile

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang"
)

// Consolidation: a concept page that enough sources describe gets a short
// summary above its per-source sections, written by the model from those
// sections alone and checked against them before it is written: a
// sentence or a few, in the sections' language, with no quotation, number
// or capitalised name the sections lack and no link or address. A summary
// that fails is asked for once more, naming the fault; failing again, it
// goes to review and the page stays as it was. Off unless
// Options.Consolidate caps the pages per run above zero.

// DefaultConsolidateSources is how many sources a concept page needs
// before it is consolidated (Options.ConsolidateSources 0).
const DefaultConsolidateSources = 3

// Summary bounds, in words.
const (
	minSummaryWords = 8
	maxSummaryWords = 80
)

const taskSummarise = "Task: summarise a concept page from its sections."

func summariseSystem() string {
	return taskSummarise + `

The user message holds the sections of one page between <sections> and </sections>, each what one source says about the page's subject. ` + dataRule + `

Reply with one JSON object: "summary", two to four sentences (at most ` + itoa(maxSummaryWords) + ` words) saying what the sections together say about the subject. Use only what the sections say. Write in the language of the sections. No quotation marks, no numbers or names the sections do not contain, no links, no web addresses.`
}

var summarySchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"summary": map[string]any{"type": "string"}},
	"required":   []string{"summary"},
}

// consolidate summarises, up to the cap, the concept pages among written
// (vault paths) that have enough sources and no summary of them all yet.
// It never fails the compile: a page it cannot summarise is left as it
// was, with a review item when the model's summary failed the checks.
func (c *compiler) consolidate(ctx context.Context, written []string) error {
	if c.opt.Consolidate <= 0 || c.opt.Model == nil || c.privateSrc {
		return nil
	}
	need := c.opt.ConsolidateSources
	if need <= 0 {
		need = DefaultConsolidateSources
	}
	done := 0
	for _, p := range written {
		rel, ok := strings.CutPrefix(p, c.dir.rel+"/")
		if !ok || !strings.HasPrefix(rel, "Concepts/") || done == c.opt.Consolidate {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := c.dir.read(rel)
		if err != nil || b == nil {
			return err
		}
		var meta pageFront
		if _, mine := ours(b); !mine || noFront(b, &meta) || len(meta.Sources) < need || sameSet(meta.Summary, meta.Sources) {
			continue
		}
		done++
		_, body, _ := parsePage(b)
		i := strings.Index(body, "\n## ")
		if i < 0 {
			continue
		}
		sections := body[i+1:]
		summary, fault := c.summarise1(ctx, sections, "")
		if fault != "" && ctx.Err() == nil {
			summary, fault = c.summarise1(ctx, sections, fault)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fault != "" {
			reason := "Quire's summary of the concept page " + meta.Title + " failed its checks twice (" + fault + "), so the page was left as it was."
			body := "## The summary it rejected\n\n" + escapeText(orNone(summary)) + "\n"
			name := "Review/" + noteName(meta.Title) + " — summary.md"
			if err := c.review(name, reason, p, "Summary of "+meta.Title, body); err != nil {
				return err
			}
			continue
		}
		meta.Summary, meta.Format, meta.Hash = slices.Clone(meta.Sources), Format, ""
		nb, err := seal(meta, "\n# "+escapeText(meta.Title)+"\n\n> [!abstract] Summary\n> "+escapeText(summary)+"\n\n"+sections)
		if err != nil {
			return err
		}
		if err := c.dir.write(rel, nb, true); err != nil {
			return err
		}
		c.written(p, "concept", false)
	}
	return nil
}

// summarise1 asks the model for a summary of sections, once, telling it
// what was wrong with the last one when fault is set; it returns the
// summary and what is wrong with it ("" when it passes the checks).
func (c *compiler) summarise1(ctx context.Context, sections, fault string) (string, string) {
	r := &reader{model: c.opt.Model, window: c.window()}
	defer c.counted(r)
	user := "<sections>\n" + fence(sections) + "\n</sections>"
	if fault != "" {
		user += "\n\nYour last summary was rejected: " + fault + ". Write it again."
	}
	var v struct {
		Summary string `json:"summary"`
	}
	if err := r.call(ctx, summariseSystem(), user, r.planReply(), summarySchema, &v); err != nil {
		return "", "the model did not answer (" + firstLine(err.Error()) + ")"
	}
	s := oneLine(scrub(v.Summary))
	return s, checkSummary(s, sections)
}

// checkSummary says what is wrong with a summary of sections, or "".
func checkSummary(s, sections string) string {
	words := strings.Fields(s)
	if len(words) < minSummaryWords {
		return "it is shorter than " + itoa(minSummaryWords) + " words"
	}
	if len(words) > maxSummaryWords {
		return "it is longer than " + itoa(maxSummaryWords) + " words"
	}
	if want, got := lang.Detect(sections), lang.Detect(s); want != lang.Unknown && got != lang.Unknown && want != got {
		return "it is not in the language of the sections"
	}
	if m := linkOrURL.FindString(s); m != "" {
		return "it has a link or address (" + m + ")"
	}
	text := fold(sections).s
	for _, q := range quoted.FindAllStringSubmatch(s, -1) {
		if !strings.Contains(text, fold(q[1]).s) {
			return "it quotes “" + q[1] + "”, which the sections do not say"
		}
	}
	for _, n := range number.FindAllString(s, -1) {
		if !strings.Contains(sections, n) {
			return "it has the number " + n + ", which the sections do not"
		}
	}
	have := map[string]bool{}
	for _, w := range lang.Words(sections) {
		have[lang.Fold(w)] = true
	}
	for _, name := range capitalised(s) {
		if !have[lang.Fold(strings.ToLower(name))] {
			return "it names “" + name + "”, which the sections do not"
		}
	}
	return ""
}

var (
	linkOrURL = regexp.MustCompile(`\[\[|\]\(|(?i)\b(?:https?://|www\.)\S*|\b[a-z0-9-]+\.(?:com|org|net|io)\b`)
	quoted    = regexp.MustCompile(`["“„«]([^"“”„«»]{3,})["”»]`)
	number    = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
)

// capitalised lists the words of s that begin with a capital letter and
// do not begin a sentence: the names it uses.
func capitalised(s string) []string {
	var out []string
	start := true
	for _, f := range strings.Fields(s) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if r, _ := utf8.DecodeRuneInString(w); w != "" && unicode.IsUpper(r) && !start {
			out = append(out, w)
		}
		start = strings.ContainsAny(f[len(f)-1:], ".!?:")
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
