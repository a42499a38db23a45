package mcp

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	tests := []struct {
		path string
		want string // "" for accepted, else part of the error
	}{
		{"Note.md", ""},
		{"Kitchen/Sourdough.md", ""},
		{" Kitchen/Rye bread.md ", ""},
		{"Notes/Été.MD", ""},
		{"", "empty"},
		{"../x.md", "leaves the vault"},
		{"a/../../x.md", "leaves the vault"},
		{"a/..", "leaves the vault"},
		{"/etc/passwd", "absolute"},
		{`\\server\share\x.md`, "absolute"},
		{`C:\x.md`, "absolute"},
		{"c:x.md", "absolute"},
		{`a\b.md`, "backslashes"},
		{".obsidian/workspace.md", "dot folder"},
		{"a/.git/x.md", "dot folder"},
		{".hidden.md", "dot"},
		{"./a.md", "not clean"},
		{"a//b.md", "not clean"},
		{"a/b.txt", "not a Markdown note"},
		{"a\x00.md", "NUL"},
	}
	for _, tt := range tests {
		_, err := checkPath(tt.path)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("checkPath(%q) = %v, want accepted", tt.path, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("checkPath(%q) = %v, want an error saying %q", tt.path, err, tt.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler words here ", 40) + "the quince paste sets overnight " + strings.Repeat("more filler ", 40)
	tests := []struct {
		text, query string
		want        string // in the snippet
	}{
		{"short text", "x", "short text"},
		{long, "quince", "quince paste"},
		{long, "absent", "filler words"},
		{strings.Repeat("é", 400), "x", "é"},
	}
	for _, tt := range tests {
		got := snippet(tt.text, tt.query, 120)
		if !strings.Contains(got, tt.want) || len(got) > 120+len(" … … ") {
			t.Errorf("snippet(…, %q) = %q (%d bytes), want ≤120 bytes with %q", tt.query, got, len(got), tt.want)
		}
		if !strings.Contains(got, "") || !validUTF8(got) {
			t.Errorf("snippet(…, %q) = %q is not valid UTF-8", tt.query, got)
		}
	}
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestCheckListen(t *testing.T) {
	const token = "0123456789abcdef"
	tests := []struct {
		addr, token string
		wantErr     error // nil: accepted; errTokenRequired; errAny for other errors
	}{
		{"127.0.0.1:8765", "", nil},
		{"127.0.0.2:0", "", nil},
		{"localhost:8765", "", nil},
		{"[::1]:8765", "", nil},
		{"127.0.0.1:8765", token, nil},
		{"0.0.0.0:8765", "", ErrTokenRequired},
		{":8765", "", ErrTokenRequired},
		{"[::]:8765", "", ErrTokenRequired},
		{"192.168.1.20:8765", "", ErrTokenRequired},
		{"example.org:8765", "", ErrTokenRequired},
		{"0.0.0.0:8765", token, nil},
		{"0.0.0.0:8765", "short", errAny},
		{"8765", "", errAny},
	}
	for _, tt := range tests {
		err := CheckListen(tt.addr, tt.token)
		switch {
		case tt.wantErr == nil && err != nil:
			t.Errorf("CheckListen(%q, %q) = %v, want accepted", tt.addr, tt.token, err)
		case tt.wantErr == errAny && err == nil:
			t.Errorf("CheckListen(%q, %q) accepted, want an error", tt.addr, tt.token)
		case tt.wantErr == ErrTokenRequired && !errors.Is(err, ErrTokenRequired):
			t.Errorf("CheckListen(%q, %q) = %v, want ErrTokenRequired", tt.addr, tt.token, err)
		}
	}
}

var errAny = errors.New("any error")
