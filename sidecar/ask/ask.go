// Package ask answers a question from the user's notes and nothing else:
// it retrieves passages, packs whole ones into the model's context under a
// budget, fences them as data, asks the model for a JSON answer that cites
// passage numbers, and then checks every citation against the passages it
// actually gave. Invented citations are removed and counted; an answer left
// without a valid citation becomes a refusal in the question's language;
// a quotation that is not in a cited passage is flagged.
//
// Without a model (none configured, or the model fails) ask still answers:
// with the sentences of the top passages that best match the question,
// each cited and labelled as extracted, not generated.
//
// Every question is appended to <state>/asks.jsonl.
package ask

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

// ErrNoQuestion is returned for an empty question.
var ErrNoQuestion = errors.New("ask: empty question")

// Retriever finds passages; *search.Searcher is one.
type Retriever interface {
	Query(ctx context.Context, q string, k int, ch search.Channel) (search.Result, error)
}

// filtering is the optional part of a Retriever that narrows a search
// to a folder and a tag before the cut to k (*search.Searcher is one); a
// scoped question needs it.
type filtering interface {
	QueryFiltered(ctx context.Context, q string, k int, ch search.Channel, f search.Filter) (search.Result, error)
}

// translator is the optional part of a Retriever that says which words
// of a text it would also search for in the vault's other languages;
// extraction matches sentences on them too. For the text it searched,
// the Result's Terms say it without a second translation.
type translator interface {
	Terms(query string) search.Terms
}

// frequency is the optional part of a Retriever that says how many
// passages hold a word (or any of its translations): extraction weighs
// the question's words by how rare they are in the vault, so that a
// word no note holds ("Mongolia") weighs most in its evidence.
type frequency interface {
	Frequency(ctx context.Context, text string) (matched, total int, err error)
}

// Model answers a chat; *llm.Client is one.
type Model interface {
	Stream(ctx context.Context, msgs []llm.Message, opts llm.Options, onDelta func(string)) (llm.Reply, error)
	Config() llm.Config
}

// Query is one question.
type Query struct {
	Question string
	// K is how many passages to retrieve before packing; 0 means Asker.K.
	K int
	// Channel overrides Asker.Channel when not empty.
	Channel search.Channel
	// History is the conversation so far, oldest first, when Question is
	// a follow-up. The latest turns that fit a share of the budget go to
	// the model (see fitTurns); the previous question is searched with
	// this one.
	History []Turn
	// Scope, when not zero, answers from the passages of notes in its
	// folder and with its tag only. It is applied by the retrieval before
	// the cut to K, so a scoped question gets K passages from inside the
	// scope whenever that many match.
	Scope search.Filter
	// Selection, when set, is text selected in a note, as a passage of
	// it: the first source, before what the search finds. It is a private
	// note's passage like any other: withheld from a remote model.
	Selection *search.Passage
}

// Asker answers questions. Set the fields before the first Ask; Ask is
// safe for concurrent use.
type Asker struct {
	// Search retrieves passages. Required.
	Search Retriever
	// Channel is the retrieval channel; empty means the best the search
	// serves (hybrid with an embedder, else bm25).
	Channel search.Channel
	// Model answers; nil means no model is configured and every answer is
	// extracted.
	Model Model
	// K is how many passages are retrieved before packing; 0 means 20.
	K int
	// ContextTokens is the model's context window; 0 means the model
	// config's ContextTokens, else a conservative default (see budget).
	ContextTokens int
	// AnswerTokens is reserved in the window for the reply; 0 means 1024.
	AnswerTokens int
	// Private holds the notes never sent to a remote model (one whose
	// endpoint is not on this machine): private folders and marked notes.
	// Their passages are left out of its context, with a warning; when
	// only they match, the answer is extracted from them here instead.
	Private vault.Private
	// Withhold leaves private notes out of the answer entirely, whatever
	// the model: the answer itself goes off this machine (an MCP client).
	Withhold bool
	// Answers is the folder saved answers are written to (default
	// DefaultAnswers); its notes are never used as sources.
	Answers string
	// Rewrite, when set and a model is configured, has the model turn the
	// question into search terms first (one extra call). Off by default:
	// measure it with `quire eval --rewrite` before turning it on.
	Rewrite bool
	// Langs are the vault's languages, for Rewrite.
	Langs []string
	// MinEvidence is the least Evidence an extracted answer needs, below
	// which it is a refusal; 0 means DefaultMinEvidence, a negative value
	// none (`quire eval --ask` uses that to see every question's evidence).
	MinEvidence float64
	// Log is the asks.jsonl path; empty means no log.
	Log string
	// Now returns the time; nil means time.Now. Tests set it.
	Now func() time.Time

	logMu sync.Mutex
}

// Citation is a passage the answer cites, with what the plugin needs to
// show it and to notice that the note changed since.
type Citation struct {
	// N is the number the answer cites it by: [N].
	N int
	search.Passage
	// Hash is the SHA-256 of the passage's text (hex), i.e. of the note's
	// bytes Start..End when the answer was made.
	Hash string
}

// Quote is a quotation in the answer, and whether it was found in a cited
// passage (whitespace and case normalised).
type Quote struct {
	N        int // the passage it was attributed to or found in; 0 if none
	Text     string
	Verified bool
}

// Answer is the outcome of one question.
type Answer struct {
	Question string
	Lang     lang.Lang // the question's language, which the answer is in
	// Text is the answer with [N] citations, the refusal, or, when
	// Extracted, a label line and the extracted sentences.
	Text      string
	Citations []Citation // kept citations, by first use in Text
	Quotes    []Quote
	// Grounded: every citation kept names a passage that was given, and
	// there is at least one. Refused: the notes do not hold the answer.
	Grounded, Refused bool
	// Extracted: no model answered; Text holds sentences from the notes.
	Extracted bool
	// Dropped counts the distinct invented citation numbers removed.
	Dropped int
	// Evidence, for an extracted answer, is the largest share of the
	// question's words one sentence of the top passages holds (0: none
	// matched); below Asker.MinEvidence the answer is a refusal.
	Evidence float64
	// Passages are the passages given to the model (or searched for
	// extraction), numbered, in the order they were given.
	Passages []Passage
	// History is the earlier turns given to the model, oldest first (the
	// oldest are dropped, and the newest cut, to fit the budget).
	History []Turn
	// HistoryTokens is what History cost in the prompt.
	HistoryTokens int
	// Scope is the folder and tag the question was narrowed to; zero for
	// the whole vault.
	Scope    search.Filter
	Channel  search.Channel
	Warnings []string
	// Model is "provider/model", empty when extracted.
	Model string
	// Remote: passages were sent to a model that is not on this machine.
	Remote                    bool
	InputTokens, OutputTokens int
	// ContextTokens is the size of the packed passages; Budget what was
	// allowed.
	ContextTokens, Budget int
	Took                  time.Duration
}

// FlaggedQuotes counts the quotations not found in a cited passage.
func (a Answer) FlaggedQuotes() int {
	n := 0
	for _, q := range a.Quotes {
		if !q.Verified {
			n++
		}
	}
	return n
}

// Ask answers q. onDelta, when not nil, receives the answer's text as it
// is generated (decoded from the model's JSON, with invented citations
// already left out); the final Answer.Text can still differ (a refusal,
// or extracted sentences when the model failed mid-way), and replaces it.
// Ask fails only when retrieval fails, ctx ends, or the question is empty:
// a model failure becomes a warning and an extracted answer.
func (a *Asker) Ask(ctx context.Context, q Query, onDelta func(string)) (Answer, error) {
	start := a.now()
	q.Question = strings.TrimSpace(q.Question)
	if q.Question == "" {
		return Answer{}, ErrNoQuestion
	}
	if onDelta == nil {
		onDelta = func(string) {}
	}
	history := cleanTurns(q.History)
	ans := Answer{Question: q.Question, Lang: conversationLang(q.Question, history), Scope: q.Scope}
	if a.Withhold || a.Model != nil && !a.Model.Config().Local() {
		var withheld int
		history, withheld = a.publicTurns(history)
		if withheld > 0 {
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("%d earlier answer(s) that may quote private folders were not sent to the remote model (their questions were)", withheld))
		}
	}

	k := q.K
	if k <= 0 {
		k = a.K
	}
	if k <= 0 {
		k = 20
	}
	ch := q.Channel
	if ch == "" {
		ch = a.Channel
	}
	res, err := a.retrieve(ctx, searchText(q.Question, history), k, ch, q.Scope)
	if err != nil {
		return Answer{}, fmt.Errorf("ask: %w", err)
	}
	ans.Channel = res.Channel
	if res.Warning != "" {
		ans.Warnings = append(ans.Warnings, res.Warning)
	}
	if len(res.Passages) == 0 && !q.Scope.IsZero() {
		// Say where it looked: the refusal alone would read as "not in
		// your notes" when it may only be outside the scope.
		ans.Warnings = append(ans.Warnings, "no passage "+scopeText(q.Scope)+" matches the question")
	}

	// Earlier answers are copies of passages, not sources: citing one
	// would point the user at a copy instead of the note.
	found := a.withoutAnswers(res.Passages)
	if s := q.Selection; s != nil {
		found = slices.Insert(slices.DeleteFunc(found, func(p search.Passage) bool { return overlaps(p, *s) }), 0, *s)
	}
	if a.Withhold {
		var withheld int
		found, withheld = a.public(found)
		if withheld > 0 {
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("%d passage(s) of private notes withheld (config mcp.private)", withheld))
		}
	}

	model := a.Model
	if model == nil {
		ans.Warnings = append(ans.Warnings, "no model configured (set model.provider and model.model in .quire/config.yaml): answering with extracted sentences")
	}
	sys := systemPrompt(ans.Lang, len(history) > 0)
	ans.Budget = a.budget(sys, q.Question)
	if len(history) > 0 {
		// The turns come out of the passages' room, at most a share of it.
		ans.History, ans.HistoryTokens = fitTurns(history, ans.Budget/historyShareDiv, countTokens)
		ans.Budget -= ans.HistoryTokens
	}
	given := found
	if model != nil && !model.Config().Local() {
		var withheld int
		given, withheld = a.public(found)
		if withheld > 0 {
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("%d passage(s) from private folders were not sent to the remote model", withheld))
		}
		if len(given) == 0 && withheld > 0 {
			// Only private notes match: answer from them here, without
			// the remote model.
			given, model = found, nil
		}
	}
	ans.Passages = Pack(given, ans.Budget, countTokens)
	for _, p := range ans.Passages {
		ans.ContextTokens += p.Tokens
	}

	if model != nil && len(ans.Passages) > 0 {
		cfg := model.Config()
		ans.Model = cfg.Provider + "/" + cfg.Model
		ans.Remote = !cfg.Local()
		err := a.generate(ctx, model, sys, &ans, onDelta)
		if err != nil && ctx.Err() != nil {
			return Answer{}, fmt.Errorf("ask: %w", ctx.Err())
		}
		if err != nil {
			ans.Warnings = append(ans.Warnings, "model failed, answering with extracted sentences: "+err.Error())
			model = nil
		}
	}
	if model == nil || len(ans.Passages) == 0 {
		a.extract(ctx, &ans, history, res.Terms)
		onDelta(ans.Text)
	}
	ans.Took = a.now().Sub(start)
	if err := a.log(ans); err != nil {
		ans.Warnings = append(ans.Warnings, err.Error())
	}
	return ans, nil
}

// overlaps reports whether passage p holds text of the selection s: it
// would only repeat it.
func overlaps(p, s search.Passage) bool {
	return p.Path == s.Path && p.Start < s.End && s.Start < p.End
}

// scopeText names a scope for a warning: "under Kitchen/ tagged #baking".
func scopeText(f search.Filter) string {
	var parts []string
	if d := strings.Trim(strings.TrimSpace(f.Folder), "/"); d != "" {
		parts = append(parts, "under "+d+"/")
	}
	if t := search.NormalTag(f.Tag); t != "" {
		parts = append(parts, "tagged #"+t)
	}
	if f.Note != "" {
		parts = append(parts, "of "+f.Note)
	}
	return strings.Join(parts, " ")
}

// retrieve searches the channel asked for (the best the search serves
// when none); the search gives way to keywords when the embedder cannot
// serve.
func (a *Asker) retrieve(ctx context.Context, question string, k int, ch search.Channel, scope search.Filter) (search.Result, error) {
	var rewriteWarning string
	if a.Rewrite && a.Model != nil {
		q, err := Rewrite(ctx, a.Model, question, a.Langs)
		if err != nil {
			rewriteWarning = err.Error() + "; searching the question as asked"
		}
		question = q
	}
	query := a.Search.Query
	if !scope.IsZero() {
		f, ok := a.Search.(filtering)
		if !ok {
			return search.Result{}, errors.New("retrieval cannot narrow to a folder or tag")
		}
		query = func(ctx context.Context, q string, k int, ch search.Channel) (search.Result, error) {
			return f.QueryFiltered(ctx, q, k, ch, scope)
		}
	}
	res, err := query(ctx, question, k, ch)
	if err != nil {
		return search.Result{}, err
	}
	if rewriteWarning != "" {
		res.Warning = strings.TrimPrefix(res.Warning+"; "+rewriteWarning, "; ")
	}
	return res, nil
}

// generate asks the model and checks its answer into ans. It returns the
// model's error, if any, for the caller to fall back on.
func (a *Asker) generate(ctx context.Context, m Model, sys string, ans *Answer, onDelta func(string)) error {
	msgs := Messages(sys, ans.Passages, ans.History, ans.Question)
	stream := newAnswerStream(len(ans.Passages), onDelta)
	rep, err := m.Stream(ctx, msgs, llm.Options{JSONSchema: ReplySchema, MaxTokens: a.answerTokens()}, stream.write)
	stream.flush()
	ans.InputTokens, ans.OutputTokens = rep.InputTokens, rep.OutputTokens
	if ans.InputTokens == 0 {
		ans.InputTokens = countTokens(sys) + countTokens(msgs[len(msgs)-1].Content)
	}
	var r reply
	switch {
	case err == nil:
		r, err = parseReply(rep.Text)
		if err != nil {
			return err
		}
	case errors.Is(err, llm.ErrBadJSON) && strings.TrimSpace(rep.Text) != "":
		// A model that answered in prose still cited in it; check that.
		r = reply{Answer: strings.TrimSpace(rep.Text)}
	default:
		return err
	}
	check(ans, r)
	return nil
}

// withoutAnswers leaves out passages of saved answers.
func (a *Asker) withoutAnswers(ps []search.Passage) []search.Passage {
	dir := a.Answers
	if dir == "" {
		dir = DefaultAnswers
	}
	out := make([]search.Passage, 0, len(ps))
	for _, p := range ps {
		if !inFolder(p.Path, dir) {
			out = append(out, p)
		}
	}
	return out
}

// public leaves out passages of private folders, and counts them.
func (a *Asker) public(ps []search.Passage) ([]search.Passage, int) {
	if a.Private.Empty() {
		return ps, 0
	}
	out := make([]search.Passage, 0, len(ps))
	for _, p := range ps {
		if !a.Private.Holds(p.Path) {
			out = append(out, p)
		}
	}
	return out, len(ps) - len(out)
}

// publicTurns leaves out the earlier answers that may quote a private
// note, keeping their questions, which the user typed: an answer built
// from a private passage (extracted here, or by a local model) would
// carry the note's words to a remote model. An answer that does not say
// what it was built from is treated as private.
func (a *Asker) publicTurns(ts []Turn) ([]Turn, int) {
	if a.Private.Empty() {
		return ts, 0
	}
	out := make([]Turn, len(ts))
	withheld := 0
	for i, t := range ts {
		out[i] = t
		if privateTurn(a.Private, t) {
			out[i].Answer = ""
			withheld++
		}
	}
	return out, withheld
}

// privateTurn reports whether an earlier answer may quote a note p holds:
// one of its passages (ids path#n) is private, or it does not say what
// it was built from.
func privateTurn(p vault.Private, t Turn) bool {
	if t.Answer == "" {
		return false
	}
	if len(t.Passages) == 0 {
		return true
	}
	for _, id := range t.Passages {
		if p.Holds(index.PassagePath(id)) {
			return true
		}
	}
	return false
}

// PrivateIn reports whether the answer was built from a note p holds: a
// passage it was given (or extracted from), or an earlier turn that was.
// Such an answer is itself private wherever it is saved.
func (ans Answer) PrivateIn(p vault.Private) bool {
	if p.Empty() {
		return false
	}
	for _, ps := range ans.Passages {
		if p.Holds(ps.Path) {
			return true
		}
	}
	for _, c := range ans.Citations {
		if p.Holds(c.Path) {
			return true
		}
	}
	for _, t := range ans.History {
		if privateTurn(p, t) {
			return true
		}
	}
	return false
}

// inFolder reports whether the vault-relative path lies in folder, ignoring
// case (as macOS and Windows do) and slashes around the folder's name.
func inFolder(path, folder string) bool {
	folder = strings.Trim(strings.ReplaceAll(folder, "\\", "/"), "/")
	if folder == "" {
		return false
	}
	return len(path) > len(folder) && path[len(folder)] == '/' && strings.EqualFold(path[:len(folder)], folder)
}

func (a *Asker) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Asker) answerTokens() int {
	if a.AnswerTokens > 0 {
		return a.AnswerTokens
	}
	return 1024
}

// Default context windows when neither Asker nor the model config gives
// one. Ollama's own default num_ctx is 2048–4096 and silently truncates a
// longer prompt, so assume the smaller window it is usually run with;
// hosted models have far larger windows, but 8k of passages is already
// more than a question needs and costs less.
const (
	defaultLocalContext  = 4096
	defaultHostedContext = 12288
	// minBudget keeps at least a passage or two even in a tiny window.
	minBudget = 384
)

// budget is how many tokens of passages fit: the window less the reply,
// the system prompt, the question and the frame, less a tenth because
// tokens are counted with cl100k and the model's tokenizer may need more.
func (a *Asker) budget(sys, question string) int {
	window := a.ContextTokens
	var cfg llm.Config
	if a.Model != nil {
		cfg = a.Model.Config()
	}
	if window <= 0 {
		window = cfg.ContextTokens
	}
	if window <= 0 {
		window = defaultLocalContext
		if cfg.Provider == llm.OpenAI || cfg.Provider == llm.Anthropic {
			window = defaultHostedContext
		}
	}
	b := window - a.answerTokens() - countTokens(sys) - countTokens(question) - 64
	b -= b / 10
	return max(b, minBudget)
}

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// questionLang is the language the answer must be in: the question's, or
// English when it gives no evidence.
func questionLang(q string) lang.Lang {
	if l := lang.Detect(q); l != lang.Unknown {
		return l
	}
	return lang.English
}

// ModelFor returns the model cfg names: nil when none is configured
// (answers are then extracted, with a warning saying how to configure
// one); the client; or, when no client can be made from cfg (an Anthropic
// key is missing), a Model whose every call fails with that error, so that
// each answer says why it was extracted instead of claiming no model is
// configured.
func ModelFor(cfg llm.Config) Model {
	if cfg.Provider == "" {
		return nil
	}
	c, err := llm.New(cfg)
	switch {
	case errors.Is(err, llm.ErrNotConfigured):
		return nil
	case err != nil:
		return failing{cfg: cfg, err: err}
	}
	return c
}

type failing struct {
	cfg llm.Config
	err error
}

func (f failing) Stream(context.Context, []llm.Message, llm.Options, func(string)) (llm.Reply, error) {
	return llm.Reply{}, f.err
}

func (f failing) Config() llm.Config { return f.cfg }
