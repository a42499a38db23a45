package ask

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/quire-app/quire/sidecar/vault"
)

// DefaultAnswers is the vault folder saved answers go to.
const DefaultAnswers = "Quire/Answers"

// noteMeta is a saved answer's frontmatter: what the plugin's citation
// hover needs to find each passage again and to notice that it changed.
type noteMeta struct {
	Quire     string `yaml:"quire"`
	Question  string `yaml:"question"`
	Asked     string `yaml:"asked"`
	Model     string `yaml:"model,omitempty"`
	Extracted bool   `yaml:"extracted,omitempty"`
	Grounded  bool   `yaml:"grounded"`
	Refused   bool   `yaml:"refused,omitempty"`
	Lang      string `yaml:"lang"`
	// Private is the private mark (vault.Note.Private): the answer was
	// built from private notes and is private wherever it lies.
	Private   bool           `yaml:"private,omitempty"`
	Citations []noteCitation `yaml:"citations"`
}

type noteCitation struct {
	N    int    `yaml:"number"`
	Note string `yaml:"note"`
	// Headings is the cited passage's heading path, a list as on the
	// wire, under the wire's name.
	Headings []string `yaml:"headingPath,omitempty"`
	Start    int      `yaml:"start"`
	End      int      `yaml:"end"`
	Hash     string   `yaml:"hash"`
}

// RenderNote writes ans as an Obsidian note: frontmatter with each
// citation's note, byte range and hash; the question as the title; the
// answer with its [n] citations; and a Sources section where each
// citation is a link to its note and heading followed by the cited
// passage, quoted. An answer built from notes private holds carries the
// private mark, and a private passage is linked, never quoted: the hover
// reads it from its note.
func RenderNote(ans Answer, at time.Time, private vault.Private) ([]byte, error) {
	meta := noteMeta{Quire: "answer", Question: ans.Question, Asked: at.UTC().Format(time.RFC3339), Model: ans.Model,
		Extracted: ans.Extracted, Grounded: ans.Grounded, Refused: ans.Refused, Lang: string(ans.Lang),
		Private: ans.PrivateIn(private), Citations: []noteCitation{}}
	for _, c := range ans.Citations {
		meta.Citations = append(meta.Citations, noteCitation{N: c.N, Note: c.Path, Headings: c.Headings,
			Start: c.Start, End: c.End, Hash: c.Hash})
	}
	front, err := yaml.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("render answer: %w", err)
	}
	var b strings.Builder
	b.WriteString("---\n")
	b.Write(front)
	b.WriteString("---\n\n# ")
	b.WriteString(strings.Join(strings.Fields(ans.Question), " "))
	b.WriteString("\n\n")
	b.WriteString(strings.TrimSpace(ans.Text))
	b.WriteString("\n")
	if len(ans.Citations) > 0 {
		b.WriteString("\n## Sources\n")
		for _, c := range ans.Citations {
			fmt.Fprintf(&b, "\n[%d] %s\n", c.N, link(c))
			if private.Holds(c.Path) {
				continue
			}
			for _, line := range strings.Split(strings.TrimSpace(c.Text), "\n") {
				b.WriteString(strings.TrimRight("> "+line, " "))
				b.WriteString("\n")
			}
		}
	}
	// The model's text and a cited note can hold control characters; the
	// saved answer must still be a note the indexer reads.
	return []byte(vault.CleanText(b.String())), nil
}

// linkUnsafe are characters Obsidian does not allow in a link's target;
// it drops them from heading links itself.
var linkUnsafe = strings.NewReplacer("[", "", "]", "", "|", "", "#", "", "^", "")

// link is an Obsidian link to the citation's note and innermost heading,
// shown as "Title › Heading".
func link(c Citation) string {
	target := strings.TrimSuffix(c.Path, ".md")
	if hs := c.Headings; len(hs) > 0 {
		target += "#" + strings.TrimSpace(linkUnsafe.Replace(hs[len(hs)-1]))
	}
	return "[[" + target + "|" + strings.TrimSpace(linkUnsafe.Replace(c.Breadcrumb())) + "]]"
}

// SaveNote writes ans as a new note in folder (vault-relative, e.g.
// DefaultAnswers) and returns its vault-relative path. The file appears
// whole or not at all (written aside, then linked into place), and an
// existing note is never replaced: a taken name gets " 2", " 3"…. An
// answer built from notes private holds is saved private (RenderNote).
func SaveNote(vaultDir, folder string, ans Answer, at time.Time, private vault.Private) (string, error) {
	body, err := RenderNote(ans, at, private)
	if err != nil {
		return "", err
	}
	folder = strings.Trim(filepath.ToSlash(folder), "/")
	if folder == "" || strings.HasPrefix(folder, ".") || strings.Contains("/"+folder+"/", "/../") {
		return "", fmt.Errorf("save answer: folder %q is not inside the vault", folder)
	}
	dir := filepath.Join(vaultDir, filepath.FromSlash(folder))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save answer: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".answer-*.tmp")
	if err != nil {
		return "", fmt.Errorf("save answer: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return "", fmt.Errorf("save answer: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("save answer: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("save answer: %w", err)
	}
	base := fileName(ans.Question)
	for i := 1; i < 1000; i++ {
		name := base + ".md"
		if i > 1 {
			name = base + " " + strconv.Itoa(i) + ".md"
		}
		err := os.Link(tmp.Name(), filepath.Join(dir, name))
		if err == nil {
			return path.Join(folder, name), nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("save answer: %w", err)
		}
	}
	return "", fmt.Errorf("save answer: too many answers named %q", base)
}

// fileName makes a note name from the question: the characters Obsidian
// and the file systems refuse removed, bidi and zero-width format
// characters dropped (they disguise a name), no trailing dot or space
// (Windows drops them), no reserved device name (CON, NUL…), at most 80
// bytes, cut at a word.
func fileName(q string) string {
	q = strings.Map(func(r rune) rune {
		switch {
		case strings.ContainsRune(`*"\/<>:|?#^[]`, r), unicode.Is(unicode.Cf, r):
			return -1
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, q)
	q = strings.Trim(strings.Join(strings.Fields(q), " "), ". ")
	if len(q) > 80 {
		cut := strings.LastIndexByte(q[:80], ' ')
		if cut < 40 {
			cut = 80
			for !utf8.RuneStart(q[cut]) {
				cut--
			}
		}
		q = strings.TrimRight(q[:cut], ". ")
	}
	if q == "" {
		q = "Answer"
	}
	if vault.Reserved(q) {
		q = "Answer " + q
	}
	return q
}

// CitedNotes reads a saved answer's frontmatter and returns the notes its
// citations name, in citation order, each once; ok is false for a note
// that is not a saved answer (quire: answer).
func CitedNotes(raw []byte) (notes []string, ok bool) {
	var meta noteMeta
	if _, err := vault.DecodeFrontmatter(raw, &meta); err != nil || meta.Quire != "answer" {
		return nil, false
	}
	for _, c := range meta.Citations {
		if c.Note != "" && !slices.Contains(notes, c.Note) {
			notes = append(notes, c.Note)
		}
	}
	return notes, true
}
