package ingest

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestNormalizeURL(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "https://example.org/a/b", "https://example.org/a/b"},
		{"scheme and host case", "HTTPS://Example.ORG/Path", "https://example.org/Path"},
		{"default https port", "https://example.org:443/a", "https://example.org/a"},
		{"default http port", "http://example.org:80/a", "http://example.org/a"},
		{"other port kept", "https://example.org:8443/a", "https://example.org:8443/a"},
		{"http port on https kept", "https://example.org:80/a", "https://example.org:80/a"},
		{"fragment", "https://example.org/a#section-2", "https://example.org/a"},
		{"trailing slash", "https://example.org/a/", "https://example.org/a"},
		{"root slash", "https://example.org/", "https://example.org"},
		{"no path", "https://example.org", "https://example.org"},
		{"utm", "https://example.org/a?utm_source=x&utm_medium=y&UTM_Campaign=z", "https://example.org/a"},
		{"click ids", "https://example.org/a?fbclid=1&gclid=2&msclkid=3", "https://example.org/a"},
		{"mailchimp and twitter", "https://example.org/a?mc_cid=1&mc_eid=2&ref_src=twsrc", "https://example.org/a"},
		{"params sorted", "https://example.org/a?b=2&a=1&c=3", "https://example.org/a?a=1&b=2&c=3"},
		{"tracking among real", "https://example.org/a?id=7&utm_source=x&page=2", "https://example.org/a?id=7&page=2"},
		{"repeated key keeps order", "https://example.org/a?x=2&a=1&x=1", "https://example.org/a?a=1&x=2&x=1"},
		{"ref kept", "https://github.com/o/r/blob/x?ref=main", "https://github.com/o/r/blob/x?ref=main"},
		{"space spellings agree", "https://example.org/s?q=a+b", "https://example.org/s?q=a+b"},
		{"space escaped", "https://example.org/s?q=a%20b", "https://example.org/s?q=a+b"},
		{"key without value", "https://example.org/s?flag&a=1", "https://example.org/s?a=1&flag"},
		{"empty params", "https://example.org/s?&&a=1&", "https://example.org/s?a=1"},
		{"unreserved escape decoded", "https://example.org/%7euser/%41", "https://example.org/~user/A"},
		{"escape case", "https://example.org/a%2fb", "https://example.org/a%2Fb"},
		{"dot segments", "https://example.org/a/./b/../c", "https://example.org/a/c"},
		{"userinfo dropped", "https://user:pw@example.org/a", "https://example.org/a"},
		{"trailing dot host", "https://example.org./a", "https://example.org/a"},
		{"ipv6 host", "http://[2001:DB8::1]:80/a/", "http://[2001:db8::1]/a"},
		{"ipv6 host port", "http://[2001:db8::1]:8080/", "http://[2001:db8::1]:8080"},
		{"whitespace", "  https://example.org/a \n", "https://example.org/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeURL(tt.in)
			if err != nil {
				t.Fatalf("NormalizeURL(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("NormalizeURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeURLRefuses(t *testing.T) {
	for _, in := range []string{"", "ftp://example.org/x", "javascript:alert(1)", "https://", "http://exa mple.org/", "mailto:a@b.c"} {
		if got, err := NormalizeURL(in); !errors.Is(err, ErrSource) {
			t.Errorf("NormalizeURL(%q) = %q, %v; want ErrSource", in, got, err)
		}
	}
}

func TestKey(t *testing.T) {
	abs, err := filepath.Abs("docs/paper.pdf")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"https://Example.org/a/?utm_source=x", "https://example.org/a"},
		{"/tmp/x/../paper.pdf", "file:/tmp/paper.pdf"},
		{"docs/./paper.pdf", "file:" + abs},
	}
	for _, tt := range tests {
		got, err := Key(tt.in)
		if err != nil {
			t.Fatalf("Key(%q): %v", tt.in, err)
		}
		if got != tt.want {
			t.Errorf("Key(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"", "   ", "ftp://example.org/x"} {
		if _, err := Key(in); !errors.Is(err, ErrSource) {
			t.Errorf("Key(%q) err = %v, want ErrSource", in, err)
		}
	}
}

func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{"https://example.org/a?b=1&utm_source=x#f", "http://[::1]:80/./a/../b/", "https://x/%zz?%zz=%", "HTTP://A.B./?a=1&a=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeURL(s)
		if err != nil {
			return
		}
		// A key must be a fixed point: normalising it again changes nothing,
		// or two spellings of one page could still get different keys.
		again, err := NormalizeURL(got)
		if err != nil {
			t.Fatalf("NormalizeURL(%q) = %q, which does not normalise: %v", s, got, err)
		}
		if again != got {
			t.Fatalf("NormalizeURL(%q) = %q, then %q", s, got, again)
		}
	})
}
