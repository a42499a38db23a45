package markdown

import "testing"

func TestProse(t *testing.T) {
	cases := []struct{ in, want string }{
		{"[[perdita]] per [[deep learning]].\n\n$$\n\\Large\n\\loss \\par{y, x}\n$$\n", "perdita per deep learning."},
		{"La derivata $f'(x)$ di \\func una funzione", "La derivata   di   una funzione"},
		{"Usa `git commit` qui.\n```go\nfor i := range x {}\n```\nFine.", "Usa   qui.\n\n\n\nFine."},
		{"prezzo $5 e $6", "prezzo $5 e $6"},
	}
	for _, c := range cases {
		if got := Prose(c.in); got != c.want {
			t.Errorf("Prose(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
