package bm25

import (
	"context"
	"reflect"
	"testing"
)

func TestExactTokens(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"ping 192.168.0.1, then 10.0.0.0/24.", []string{"192.168.0.1", "10.0.0.0/24"}},
		{"Upgrade to **v1.2.3-rc.1** (not v1.2).", []string{"v1.2.3-rc.1", "v1.2"}},
		{"set `max_retry_count` and dark-mode", []string{"max_retry_count", "dark-mode"}},
		{"#Draft status, #project/quire.", []string{"#draft", "#project/quire"}},
		{"edit /etc/nginx/nginx.conf or ~/.config/quire: done", []string{"/etc/nginx/nginx.conf", "~/.config/quire"}},
		{"run --force with $HOME and @anna; see [[Notes/a.md]]", []string{"--force", "$home", "@anna", "notes/a.md"}},
		// Plain words, headings' marks, list numbers and lone punctuation are not exact tokens.
		{"# Heading\n1. plain words - here: “quoted” (too)", nil},
	}
	for _, tt := range tests {
		if got := ExactTokens(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExactTokens(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestExactTokensRank checks each kind of exact token: the passage that
// holds the query's string whole comes first, above one that holds its
// pieces (or another form of its word) more often, and does not without
// the exact field (weight 0), so each row tests the field.
func TestExactTokensRank(t *testing.T) {
	tests := []struct {
		kind, query string
		hit, decoy  Doc
	}{
		{"IP address", "10.20.0.0/16",
			Doc{Body: "Route 10.20.0.0/16 through the office tunnel."},
			Doc{Body: "Subnet 10.20.0.0/24, and 10.20.0.0 again: mask 16, 16."}},
		{"version", "v2.4.1-rc1",
			Doc{Body: "We upgrade to v2.4.1-rc1 next week."},
			Doc{Body: "v2.4.1 is out; rc1 of v2.4.1, rc1 again."}},
		{"snake_case", "user_names",
			Doc{Body: "Set user_names in the settings file."},
			Doc{Body: "user_name, user_name: the key."}},
		{"kebab-case", "dark-mode",
			Doc{Body: "Enable dark-mode in the settings of the app."},
			Doc{Body: "The dark room mode: dark, mode."}},
		{"#tag", "#draft",
			Doc{Body: "Status: #draft until Friday, then more work."},
			Doc{Body: "Drafts: three drafts, draft notes."}},
		{"frontmatter tag", "#draft",
			Doc{Body: "A draft of the letter to the bank.", Tags: []string{"draft"}},
			Doc{Body: "A draft, a draft of the letter."}},
		{"path", "/etc/nginx/nginx.conf",
			Doc{Body: "Edit /etc/nginx/nginx.conf and reload the server."},
			Doc{Body: "nginx.conf, etc: nginx and nginx.conf, etc."}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		tt.hit.ID, tt.hit.Path, tt.hit.Lang = "hit", "hit.md", "en"
		tt.decoy.ID, tt.decoy.Path, tt.decoy.Lang = "decoy", "decoy.md", "en"
		x := openWith(t, []Doc{tt.hit, tt.decoy, {ID: "other", Path: "other.md", Lang: "en", Body: "something else entirely"}})
		for _, exact := range []float64{DefaultFieldWeights.Exact, 0} {
			w := DefaultFieldWeights
			w.Exact = exact
			x.SetFieldWeights(w)
			hits, err := x.Search(ctx, tt.query, 5)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(hits)
			if first := len(got) > 0 && got[0] == "hit"; first != (exact > 0) {
				t.Errorf("%s: %q with exact weight %g: got %v", tt.kind, tt.query, exact, got)
			}
		}
	}
}
