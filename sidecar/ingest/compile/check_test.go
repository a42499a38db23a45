package compile

import (
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	src := "Café  au lait,\n“the best” — or so\tthey say. Il a dit: l’été est là. AI said so."
	h := fold(src)
	tests := []struct {
		needle string
		words  bool
		want   string
		ok     bool
	}{
		{"cafe au lait", false, "Café au lait", true},                               // accents, case, whitespace
		{"CAFÉ AU\nLAIT", false, "Café au lait", true},                              // case and a newline
		{`"the best" - or so they say`, false, "“the best” — or so they say", true}, // typographic quotes and dashes
		{"l'ete est la", false, "l’été est là", true},
		{"cafe au lait, the best", false, "", false}, // a word missing
		{"the best or so", false, "", false},         // the dash is there
		{"ai", true, "AI", true},                     // a word, not the "ai" in "lait" or "said"
		{"lai", true, "", false},                     // inside a word
		{"", false, "", false},
	}
	for _, tt := range tests {
		got, ok := h.find(tt.needle, tt.words)
		if got != tt.want || ok != tt.ok {
			t.Errorf("find(%q): got %q, %v; want %q, %v", tt.needle, got, ok, tt.want, tt.ok)
		}
	}
}

func TestQuoteCheck(t *testing.T) {
	c := &checker{text: fold("Patience is the main ingredient of a good loaf. Time builds flavour.")}
	for _, tt := range []struct {
		quote, want string
		ok          bool
	}{
		{"patience is the MAIN ingredient", "Patience is the main ingredient", true},
		{`"Patience is the main ingredient of a good loaf."`, "Patience is the main ingredient of a good loaf.", true},
		{"Patience is the only ingredient", "", false},
		{"Time", "", false}, // too short to be a quote
	} {
		got, ok := c.quote(tt.quote)
		if got != tt.want || ok != tt.ok {
			t.Errorf("quote(%q): got %q, %v; want %q, %v", tt.quote, got, ok, tt.want, tt.ok)
		}
	}
	if got := c.drops.n["quote"]; got != 2 {
		t.Errorf("dropped %d quotes, want 2", got)
	}
}

func TestProse(t *testing.T) {
	c := &checker{
		raw:    "see https://ok.example/a and more",
		images: []string{"https://ok.example/i.png"},
		resolve: func(t string) (string, bool) {
			if t == "Known" {
				return "Notes/Known.md", true
			}
			return "", false
		},
	}
	tests := []struct{ in, want string }{
		{"plain words", "plain words"},
		{"<b>bold</b> <script>alert(1)</script>text", "bold text"},
		{"a &lt;script&gt; b", "a &lt;script&gt; b"}, // character references cannot spell a tag
		{"see [[Known]] and [[Unknown|that]]", "see [[Notes/Known|Known]] and that"},
		{"embed ![[Known]] here", "embed Known here"},
		{"go to https://ok.example/a. Or https://evil.example/x.", "go to https://ok.example/a. Or ."},
		{"[good](https://ok.example/a) [bad](https://evil.example/)", "[good](https://ok.example/a) bad"},
		{"[js](javascript:alert(1))", "js"},
		{"![pic](https://ok.example/i.png) ![x](https://evil.example/t.gif)", "![pic](https://ok.example/i.png)"},
		{"# heading", `\# heading`},
		{"1. first", `1\. first`},
		{"- item", `\- item`},
		{"a #tag and %%hidden%% and `code` and $x$", `a \#tag and \%%hidden\%% and \` + "`code\\`" + ` and \$x\$`},
		{"bidi\u202eevil\x07 bell\x1b", "bidievil bell"},
		{"[[", `\[\[`},
		{"[x] (y)", `\[x\] (y)`},
		{"line one\nline two", "line one line two"},
	}
	for _, tt := range tests {
		if got := c.prose(tt.in, false); got != tt.want {
			t.Errorf("prose(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	if got, want := c.prose("one\n\n# two\n\n\n three", true), "one\n\n\\# two\n\nthree"; got != want {
		t.Errorf("multi: got %q, want %q", got, want)
	}
	for what, want := range map[string]int{"link": 2, "url": 3, "image": 1} {
		if got := c.drops.n[what]; got != want {
			t.Errorf("dropped %s: got %d, want %d", what, got, want)
		}
	}
}

func TestDropSentence(t *testing.T) {
	var d drops
	d.add("link")
	d.add("quote")
	d.add("quote")
	if got, want := dropSentence(d.list()), "dropped 2 quotes not in the source, 1 link to no such page"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTag(t *testing.T) {
	for in, want := range map[string]string{"Baking": "baking", "#sour dough": "sour-dough", "2024": "", "a/b": "a/b",
		"<b>x</b>": "x", "tag!": "tag", strings.Repeat("a", 50): ""} {
		if got := tag(in); got != want {
			t.Errorf("tag(%q): got %q, want %q", in, got, want)
		}
	}
}
