package vault

import "testing"

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name, in           string
		front, body, delim string
		ok                 bool
	}{
		{"yaml", "---\ntitle: A\n---\n# A\n", "title: A\n", "# A\n", "---", true},
		{"crlf", "---\r\ntitle: A\r\n---\r\n# A\r\n", "title: A\r\n", "# A\r\n", "---", true},
		{"toml", "+++\ntitle = \"A\"\n+++\nbody\n", "title = \"A\"\n", "body\n", "+++", true},
		{"bom", "\ufeff---\ntitle: A\n---\nbody", "title: A\n", "body", "---", true},
		{"trailing spaces", "--- \ntitle: A\n---\t\nbody", "title: A\n", "body", "---", true},
		{"empty block", "---\n---\nbody", "", "body", "---", true},
		{"closed at the end", "---\ntitle: A\n---", "title: A\n", "", "---", true},
		{"unclosed", "---\ntitle: A\nbody\n", "", "---\ntitle: A\nbody\n", "", false},
		{"not on the first line", "\n---\ntitle: A\n---\n", "", "\n---\ntitle: A\n---\n", "", false},
		{"a rule, not a block", "----\ntitle: A\n----\n", "", "----\ntitle: A\n----\n", "", false},
		{"mixed delimiters", "---\ntitle: A\n+++\n", "", "---\ntitle: A\n+++\n", "", false},
		{"bom, no block", "\ufeff# A\n", "", "# A\n", "", false},
	}
	for _, tt := range tests {
		front, body, delim, ok := SplitFrontmatter([]byte(tt.in))
		if string(front) != tt.front || string(body) != tt.body || delim != tt.delim || ok != tt.ok {
			t.Errorf("%s: got (%q, %q, %q, %v), want (%q, %q, %q, %v)", tt.name, front, body, delim, ok, tt.front, tt.body, tt.delim, tt.ok)
		}
	}
}

func TestDecodeFrontmatter(t *testing.T) {
	var m struct{ Title string }
	if body, err := DecodeFrontmatter([]byte("+++\ntitle = \"T\"\n+++\nbody"), &m); err != nil || m.Title != "T" || string(body) != "body" {
		t.Errorf("toml: %+v, %q, %v", m, body, err)
	}
	m.Title = ""
	if _, err := DecodeFrontmatter([]byte("---\r\ntitle: Y\r\n---\r\n"), &m); err != nil || m.Title != "Y" {
		t.Errorf("yaml with CRLF: %+v, %v", m, err)
	}
	if _, err := DecodeFrontmatter([]byte("# no block\n"), &m); err != ErrNoFrontmatter {
		t.Errorf("no block: %v, want ErrNoFrontmatter", err)
	}
}
