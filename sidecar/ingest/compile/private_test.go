package compile

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/vault"
)

// privateMarker is planted in a note of a private folder; it must reach no
// request to a remote model and no generated note.
const privateMarker = "zq-private-7731"

var journalPage = Page{Path: "Journal/2026-02-11.md", Title: "Starter diary", Headings: []string{"Feb", privateMarker},
	Snippet: "Fed the starter at dawn, " + privateMarker + " felt low.", Score: 3.0}

// TestPrivatePagesNeverReachRemoteModel runs a compile against a loopback
// fake the config calls remote (a local proxy to a hosted API), with a
// private note among the related pages: no request carries its text, and
// no written note quotes it.
func TestPrivatePagesNeverReachRemoteModel(t *testing.T) {
	for _, remote := range []string{"true", "false"} {
		t.Run("remote="+remote, func(t *testing.T) {
			vault := t.TempDir()
			_, srv := newModel(t, articleModel, 0)
			model, err := llm.New(llm.Config{Provider: llm.OpenAI, Endpoint: srv.URL, Model: "fake", Timeout: 10 * time.Second, Remote: remote})
			if err != nil {
				t.Fatal(err)
			}
			search, exists := related(breadPage, journalPage)
			res, err := Compile(context.Background(), source(articleDoc(t), "https://crumb.example/posts/sourdough-rise"),
				Options{Vault: vault, Folder: "Quire", Model: model, Related: search, Exists: exists, Private: privateOf(t, "journal/")})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Summarised {
				t.Fatalf("not summarised: %s", res.Reason)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no request reached the model")
			}
			if remote == "true" {
				for i, r := range reqs {
					for _, m := range r.Messages {
						if strings.Contains(m.Content, privateMarker) || strings.Contains(m.Content, "Starter diary") {
							t.Errorf("request %d to a remote model carries the private note:\n%s", i, m.Content)
						}
					}
				}
			}
			for p, body := range snapshot(t, vault, "Quire") {
				if strings.Contains(body, privateMarker) {
					t.Errorf("%s quotes the private note:\n%s", p, body)
				}
			}
		})
	}
}

// TestPrivatePagesNotQuotedWithoutModel: the unsummarised note lists
// related pages with their matching heading or opening words; a private
// page is linked without them.
func TestPrivatePagesNotQuotedWithoutModel(t *testing.T) {
	vault := t.TempDir()
	search, exists := related(journalPage)
	res, err := Compile(context.Background(), source(articleDoc(t), "https://crumb.example/x"),
		Options{Vault: vault, Folder: "Quire", Related: search, Exists: exists, Private: privateOf(t, "Journal")})
	if err != nil {
		t.Fatal(err)
	}
	note := readFile(t, vault, res.Note)
	if !strings.Contains(note, "[[Journal/2026-02-11|Starter diary]]") {
		t.Errorf("the private page is not linked:\n%s", note)
	}
	for p, body := range snapshot(t, vault, "Quire") {
		if strings.Contains(body, privateMarker) {
			t.Errorf("%s quotes the private note:\n%s", p, body)
		}
	}
}

// privateOf reads private: entries as the engine hands them over.
func privateOf(t *testing.T, entries ...string) vault.Private {
	t.Helper()
	p, err := vault.ParsePrivate(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
