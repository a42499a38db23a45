package ask

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

func TestSaveNote(t *testing.T) {
	dir := t.TempDir()
	ans := Answer{Question: "What does rennet do? [really]", Lang: "en", Grounded: true, Model: "ollama/fake",
		Text: "It curdles milk [2].",
		Citations: []Citation{{N: 2, Hash: "abc", Passage: search.Passage{ID: "Kitchen/Rennet.md#1", Path: "Kitchen/Rennet.md", Title: "Rennet",
			Headings: []string{"Uses [old]"}, Start: 10, End: 60, Text: "## Uses\n\nRennet curdles milk.\n"}}}}
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p1, err := SaveNote(dir, DefaultAnswers, ans, at, vault.Private{})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := SaveNote(dir, DefaultAnswers+"/", ans, at, vault.Private{})
	if err != nil {
		t.Fatal(err)
	}
	if p1 != "Quire/Answers/What does rennet do really.md" || p2 != "Quire/Answers/What does rennet do really 2.md" {
		t.Errorf("paths %q, %q", p1, p2)
	}
	body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p1)))
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	for _, want := range []string{"# What does rennet do? [really]\n\nIt curdles milk [2].\n", "## Sources\n\n[2] [[Kitchen/Rennet#Uses old|Rennet › Uses old]]\n> ## Uses\n>\n> Rennet curdles milk.\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("note lacks %q:\n%s", want, text)
		}
	}
	front, _, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
	if !ok {
		t.Fatalf("no frontmatter:\n%s", text)
	}
	var meta noteMeta
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		t.Fatal(err)
	}
	if c := meta.Citations; len(c) != 1 || c[0].Note != "Kitchen/Rennet.md" || c[0].Start != 10 || c[0].End != 60 || c[0].Hash != "abc" || !slices.Equal(c[0].Headings, []string{"Uses [old]"}) {
		t.Errorf("frontmatter citations %+v", meta.Citations)
	}
	if meta.Question != ans.Question || meta.Asked != "2025-01-02T03:04:05Z" {
		t.Errorf("frontmatter %+v", meta)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "Quire", "Answers", ".answer-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, bad := range []string{"", "../out", ".quire", "a/../../b"} {
		if _, err := SaveNote(dir, bad, ans, at, vault.Private{}); err == nil {
			t.Errorf("folder %q: saved outside the vault's notes", bad)
		}
	}
}

// TestSavedAnswerIndexable: control characters in the question, the
// model's text or a cited passage never reach the saved note, which the
// indexer must read like any other.
func TestSavedAnswerIndexable(t *testing.T) {
	dir := t.TempDir()
	ans := Answer{Question: "Why\x00 rye\x1b[2J?\u0085", Lang: "en", Grounded: true, Model: "fake\x07",
		Text: "Rye\x00 likes\x0b cold\x7f soil [1].",
		Citations: []Citation{{N: 1, Hash: "abc", Passage: search.Passage{ID: "Rye.md#0", Path: "Rye.md", Title: "Rye\x0c",
			Start: 0, End: 20, Text: "Rye grows\x0c in cold\x00 soil.\r\n"}}}}
	p, err := SaveNote(dir, DefaultAnswers, ans, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), vault.Private{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vault.Read(dir, p, config.Default().MaxFileBytes); err != nil {
		t.Fatalf("the indexer skips the saved answer: %v", err)
	}
	body, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	for i, r := range string(body) {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			t.Fatalf("%s carries %U at byte %d:\n%q", p, r, i, body)
		}
	}
}

// TestPrivateAnswerSavedPrivate: an answer built from a private passage
// (cited, only given, or carried by an earlier turn) is saved with the
// private mark that the indexer reads, and its Sources section links the
// private passage without quoting it.
func TestPrivateAnswerSavedPrivate(t *testing.T) {
	private := privateOf(t, "Journal/")
	diary := search.Passage{ID: "Journal/Health.md#0", Path: "Journal/Health.md", Title: "Health", Start: 0, End: 40,
		Text: "I take lisinopril every morning."}
	drugs := search.Passage{ID: "Notes/Drugs.md#0", Path: "Notes/Drugs.md", Title: "Drugs", Start: 0, End: 40,
		Text: "Lisinopril is an ACE inhibitor."}
	cited := Answer{Question: "What do I take?", Lang: "en", Grounded: true, Text: "Lisinopril [1], an ACE inhibitor [2].",
		Citations: []Citation{{N: 1, Passage: diary}, {N: 2, Passage: drugs}}, Passages: []Passage{{N: 1, Passage: diary}, {N: 2, Passage: drugs}}}
	given := Answer{Question: "What is lisinopril?", Lang: "en", Grounded: true, Text: "An ACE inhibitor [1].",
		Citations: []Citation{{N: 1, Passage: drugs}}, Passages: []Passage{{N: 1, Passage: drugs}, {N: 2, Passage: diary}}}
	followUp := Answer{Question: "And what class is it?", Lang: "en", Grounded: true, Text: "An ACE inhibitor [1].",
		Citations: []Citation{{N: 1, Passage: drugs}}, Passages: []Passage{{N: 1, Passage: drugs}},
		History: []Turn{{Question: "What do I take?", Answer: "Lisinopril [1].", Passages: []string{"Journal/Health.md#0"}}}}
	public := Answer{Question: "What is lisinopril?", Lang: "en", Grounded: true, Text: "An ACE inhibitor [1].",
		Citations: []Citation{{N: 1, Passage: drugs}}, Passages: []Passage{{N: 1, Passage: drugs}}}
	for name, tc := range map[string]struct {
		ans  Answer
		want bool
	}{"cited": {cited, true}, "given": {given, true}, "follow-up": {followUp, true}, "public": {public, false}} {
		dir := t.TempDir()
		p, err := SaveNote(dir, DefaultAnswers, tc.ans, time.Now(), private)
		if err != nil {
			t.Fatal(err)
		}
		n, err := vault.Read(dir, p, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if n.Private != tc.want {
			t.Errorf("%s: saved private %v, want %v:\n%s", name, n.Private, tc.want, n.Raw)
		}
		if strings.Contains(string(n.Raw), "every morning") {
			t.Errorf("%s: the saved answer quotes the private passage:\n%s", name, n.Raw)
		}
		if name == "cited" && !strings.Contains(string(n.Raw), "[1] [[Journal/Health|Health]]\n\n[2]") {
			t.Errorf("%s: the private passage is not linked alone:\n%s", name, n.Raw)
		}
	}
}

func TestFileName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"What is a/b: c?", "What is ab c"},
		{"  ...  ", "Answer"},
		{strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 16))},
		{strings.Repeat("ž", 60), strings.Repeat("ž", 40)},
		// Names a red team saved an answer under.
		{"\u202e \u200b", "Answer"},
		{"evil\u202egpj.md", "evilgpj.md"},
		{"CON", "Answer CON"},
		{"nul.txt", "Answer nul.txt"},
		{"Trailing dots...", "Trailing dots"},
		{"tab\there\x7fdel", "tab here del"},
	}
	for _, tt := range tests {
		if got := fileName(tt.in); got != tt.want {
			t.Errorf("fileName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPrivateFoldersStayOffRemoteModels(t *testing.T) {
	files := map[string]string{
		"Journal/Health.md":                   "# Health\n\nMy blood pressure medication is lisinopril, taken every morning.\n",
		"Notes/Drugs.md":                      "# Drugs\n\nLisinopril is an ACE inhibitor used for high blood pressure.\n",
		"Quire/Answers/What is lisinopril.md": "# What is lisinopril?\n\nLisinopril is an ACE inhibitor [1].\n",
	}
	f := newFixture(t, files)
	srv := llmtest.New(t)
	srv.SetResponder(citeNote(t, "Drugs.md", "An ACE inhibitor"))

	// The fake listens on 127.0.0.1; the model's config claims a remote
	// endpoint, which is what decides what may be sent.
	remote := &remoteModel{Client: client(t, llm.OpenAI, srv.URL)}
	a := f.asker(remote)
	a.Private = privateOf(t, "journal/")
	ans, err := a.Ask(context.Background(), Query{Question: "What is lisinopril for?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	user := userText(t, srv.Last(t))
	if strings.Contains(user, "Journal/Health.md") || strings.Contains(user, "every morning") {
		t.Errorf("a private passage reached the remote model:\n%s", user)
	}
	if strings.Contains(user, "Quire/Answers") {
		t.Errorf("a saved answer was given as a source:\n%s", user)
	}
	if !ans.Remote || !ans.Grounded || len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "private") {
		t.Errorf("remote %v grounded %v warnings %q", ans.Remote, ans.Grounded, ans.Warnings)
	}

	// Only private notes match: answered here, without the model.
	n := len(srv.Requests())
	ans, err = a.Ask(context.Background(), Query{Question: "When do I take my medication every morning?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != n || !ans.Extracted || ans.Remote || len(ans.Citations) == 0 || ans.Citations[0].Path != "Journal/Health.md" {
		t.Errorf("requests %d→%d extracted %v citations %+v", n, len(srv.Requests()), ans.Extracted, ans.Citations)
	}

	// A local model sees everything.
	a.Model = client(t, llm.OpenAI, srv.URL)
	if _, err := a.Ask(context.Background(), Query{Question: "What is lisinopril for?"}, nil); err != nil {
		t.Fatal(err)
	}
	if user := userText(t, srv.Last(t)); !strings.Contains(user, "Journal/Health.md") {
		t.Errorf("the local model was not given the private note:\n%s", user)
	}
}

// remoteModel is a client whose config claims a remote endpoint.
type remoteModel struct{ *llm.Client }

func (m *remoteModel) Config() llm.Config {
	c := m.Client.Config()
	c.Endpoint = "https://models.example.com/v1"
	return c
}

// privateOf reads private: entries as the engine gives them to an Asker.
func privateOf(t *testing.T, entries ...string) vault.Private {
	t.Helper()
	p, err := vault.ParsePrivate(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
