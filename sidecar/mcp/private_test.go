package mcp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
)

// privateMarker lies in a private note; by default no tool result may
// carry it.
const privateMarker = "PRIVMCP-5e21"

// TestPrivateNotesWithheld calls every tool that returns note text —
// search_knowledge (with and without a filter), search_sources, get_note,
// ask, follow-up context included, grep and toc — on a vault whose best match is a
// private note, in this process and through a running sidecar: by default
// no result carries it and get_note says why; mcp.private: include lets
// it through.
func TestPrivateNotesWithheld(t *testing.T) {
	for _, include := range []bool{false, true} {
		for bname, newBackend := range map[string]func(testing.TB, string, config.Config) Backend{"local": localBackendFor, "sidecar": remoteBackendFor} {
			name := bname + "/withhold"
			if include {
				name = bname + "/include"
			}
			t.Run(name, func(t *testing.T) {
				v := filepath.Join(t.TempDir(), "vault")
				writeNotes(t, v, map[string]string{
					"Journal/2026-03-02.md": "---\ntags: [bread]\n---\n# Starter diary\n\nMy sourdough starter " + privateMarker + " went grey; I fed the starter rye flour.\n",
					"Quire/Answers/Old.md":  "---\nquire: answer\nprivate: true\n---\n# What went grey?\n\nThe sourdough starter " + privateMarker + " went grey [1].\n",
					"Kitchen/Starter.md":    "---\ntags: [bread]\n---\n# Starter\n\nFeed the sourdough starter rye flour and water every morning.\n",
				})
				cfg := config.Default()
				cfg.Private = []string{"Journal/"}
				cfg.Folder = "Elsewhere"
				if include {
					cfg.MCP.Private = "include"
				}
				cs := connectMemory(t, newBackend(t, v, cfg))
				var all []string
				var found SearchResult
				call(t, cs, "search_knowledge", map[string]any{"query": "sourdough starter went grey"}, &found)
				all = append(all, paths(found.Passages)...)
				call(t, cs, "search_knowledge", map[string]any{"query": "sourdough starter went grey", "tag": "bread"}, &found)
				all = append(all, paths(found.Passages)...)
				var sources Sources
				call(t, cs, "search_sources", map[string]any{"query": "sourdough starter"}, &sources)
				for _, s := range sources.Notes {
					all = append(all, s.Path)
				}
				var ans Answer
				call(t, cs, "ask", map[string]any{"question": "What went grey in my sourdough starter?"}, &ans)
				for _, c := range ans.Citations {
					all = append(all, c.Path)
				}
				var grepped GrepResult
				call(t, cs, "grep", map[string]any{"pattern": privateMarker}, &grepped)
				for _, m := range grepped.Matches {
					all = append(all, m.Path+": "+m.Text)
				}
				if include && len(grepped.Matches) != 2 {
					t.Errorf("mcp.private: include, but grep found %d lines, want the journal's and the answer's", len(grepped.Matches))
				}
				var toc engine.TOC
				call(t, cs, "toc", map[string]any{}, &toc)
				for _, f := range toc.Folders {
					for _, n := range f.Notes {
						all = append(all, n.Path)
					}
				}
				if !include && toc.Withheld != 2 {
					t.Errorf("toc withheld %d notes, want the journal and the private answer", toc.Withheld)
				}
				note := callRaw(t, cs, "get_note", map[string]any{"path": "Journal/2026-03-02.md"})
				results := strings.Join(all, "\n") + "\n" + ans.Answer + "\n" + text(note)
				if include {
					if !strings.Contains(results, privateMarker) || !strings.Contains(results, "Journal/2026-03-02.md") {
						t.Errorf("mcp.private: include, but the private note did not come through:\n%s", results)
					}
					return
				}
				for _, leak := range []string{privateMarker, "Journal/2026-03-02.md\n", "Quire/Answers/Old.md"} {
					if strings.Contains(results, leak) {
						t.Errorf("a tool result carries %q:\n%s", leak, results)
					}
				}
				if !note.IsError || !strings.Contains(text(note), "private") {
					t.Errorf("get_note of a private note: %s, want a tool error saying it is private", text(note))
				}
				if !strings.Contains(found.Warning, "withheld") {
					t.Errorf("search_knowledge does not say passages were withheld: %q", found.Warning)
				}
			})
		}
	}
}
