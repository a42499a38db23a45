package vault

import "testing"

func TestSupersession(t *testing.T) {
	for _, tc := range []struct {
		name, note string
		want       Supersession
	}{
		{"frontmatter link", "---\nsuperseded_by: \"[[Plan v2]]\"\n---\n# Plan\n", Supersession{true, "Plan v2"}},
		{"frontmatter status", "---\nstatus: Superseded\n---\n# Plan\n", Supersession{true, ""}},
		{"line", "# Plan\n\nSUPERSEDED by [[Plan v3#Goals|the new plan]] in May.\n", Supersession{true, "Plan v3"}},
		{"bold line in a quote", "# Plan\n\n> **SUPERSEDED** see [[Other]]\n", Supersession{true, "Other"}},
		{"callout", "# Plan\n\n> [!superseded] Replaced\n> by [[Next]]\n", Supersession{true, ""}},
		{"callout with its link", "# Plan\n\n> [!superseded] Replaced by [[Next]]\n", Supersession{true, "Next"}},
		{"stale is not superseded", "# Bike\n\nSTALE: not checked since 2024.\n", Supersession{}},
		{"the word in prose", "# Notes\n\nThe old API was superseded by [[New API]].\n", Supersession{}},
		{"status other", "---\nstatus: draft\n---\n", Supersession{}},
	} {
		n, err := Parse("n.md", []byte(tc.note))
		if err != nil {
			t.Fatal(err)
		}
		if n.Supersession != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, n.Supersession, tc.want)
		}
	}
}
