package worker

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/vault"
)

// wantIndexable fails for every note under the vault's generated folder
// that the indexer would skip (binary, not UTF-8, too large) or that
// carries a control character other than tab and newline.
func wantIndexable(t *testing.T, vaultDir string) {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(vaultDir, "Quire"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(vaultDir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (rel == "Quire/raw" || rel == "Quire/attachments") {
			return fs.SkipDir // originals, kept as they came
		}
		if d.IsDir() || !strings.HasSuffix(rel, ".md") {
			return nil
		}
		n++
		note, err := vault.Read(vaultDir, rel, config.Default().MaxFileBytes)
		if err != nil {
			t.Errorf("the indexer skips %s: %v", rel, err)
			return nil
		}
		for i, r := range string(note.Raw) {
			if unicode.IsControl(r) && r != '\n' && r != '\t' {
				t.Errorf("%s carries control character %U at byte %d", rel, r, i)
				break
			}
		}
		return nil
	})
	if n == 0 {
		t.Fatal("no note written")
	}
}

func utf16(t *testing.T, s string, bigEndian bool) []byte {
	t.Helper()
	e := xunicode.LittleEndian
	if bigEndian {
		e = xunicode.BigEndian
	}
	b, err := xunicode.UTF16(e, xunicode.UseBOM).NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEveryWrittenNoteIndexable ingests sources in other encodings and
// with control characters, without a model and with one, and checks every
// note Quire writes (source notes, pages, index.md, log.md, review notes)
// passes the indexer's own checks.
func TestEveryWrittenNoteIndexable(t *testing.T) {
	// What the scripted model's notes quote, so its plan passes the checks.
	study := " A study by " + person + " finds that " + quote + " and then falls, because " + term + " roots lack air."
	cp1250, _ := charmap.Windows1250.NewEncoder().Bytes([]byte(`<!doctype html><html><head><meta charset="windows-1250"><title>Žluťoučký kůň</title></head>
<body><article><h1>Žluťoučký kůň</h1><p>Příliš žluťoučký kůň úpěl ďábelské ódy, a to celé odpoledne na louce u řeky pod starým dubem.</p>
<p>Kůň pak odešel domů a spal až do rána, protože byl po tom zpívání velmi unavený a měl hlad.` + study + `</p></article></body></html>`))
	var barley []byte // UTF-16LE without a mark, declared
	for _, c := range "Field barley\n\nBarley malts." + study + "\n" {
		barley = append(barley, byte(c), 0)
	}
	sources := []struct {
		path, contentType string
		body              []byte
		title             string // what the source note's title must hold
	}{
		{"/rye.txt", "text/plain", utf16(t, "Field notes on rye\r\n\r\nRye grows in cold, poor soil and is sown in autumn."+study+"\r\n", false), "Field notes on rye"},
		{"/oats.txt", "", utf16(t, "Field notes on oats\n\nOats like cool, wet summers."+study+"\n", true), "Field notes on oats"},
		{"/barley.txt", "text/plain; charset=utf-16le", barley, "Field barley"},
		{"/kun.html", "text/html", cp1250, "Žluťoučký kůň"},
		{"/untitled.txt", "", []byte(strings.Repeat("A first line far too long to be a title, ", 4) + "\n\nThe body." + study + "\n"), "untitled"},
		{"/controls.txt", "text/plain; charset=utf-8", []byte("Report\x1b[31m on\x00 wheat\x07\r\n\r\nWheat \x0bneeds \x0csun\x7f and \u0085rain." + study + "\x00\n"), "Report[31m on wheat"},
	}
	for _, withModel := range []bool{false, true} {
		name := "no model"
		if withModel {
			name = "model"
		}
		t.Run(name, func(t *testing.T) {
			var r *rig
			if withModel {
				m := newScripted(t)
				m.title = "Soil\x00 Moisture\x1b[2J and\u202e Yield\x7f"
				r = e2eRig(t, m)
			} else {
				r = newRig(t)
				r.w.compile = compile.Compile
			}
			for _, s := range sources {
				r.site.serve(s.path, s.contentType, s.body)
			}
			r.run()
			files := t.TempDir()
			for i, s := range sources {
				src := "http://site.example" + s.path
				if s.contentType == "" {
					// A file given by path: no content type at all.
					src = filepath.Join(files, s.path)
					os.WriteFile(src, s.body, 0o644)
				}
				it := r.add(src)
				d := wantDone(t, r.ev.finished(t, it.ID))
				if withModel {
					if i == 0 {
						// An edited concept page: what later sources add
						// to it goes to review notes.
						p := filepath.Join(r.vault, "Quire", "Concepts", concept+".md")
						b, err := os.ReadFile(p)
						if err != nil {
							t.Fatal(err)
						}
						os.WriteFile(p, append(b, "\nmine\n"...), 0o644)
					}
					continue // the model names them
				}
				if note := readFile(t, filepath.Join(r.vault, d.Note)); !strings.Contains(note, "\ntitle: "+s.title+"\n") {
					t.Errorf("%s: the note's title is not %q:\n%.300q", s.path, s.title, note)
				}
			}
			wantIndexable(t, r.vault)
			if withModel {
				if rev, _ := filepath.Glob(filepath.Join(r.vault, "Quire", "Review", "*.md")); len(rev) == 0 {
					t.Error("no review note written")
				}
			}
		})
	}
}

// TestPrivateAddressesLeftOut: a page full of images and links on the
// cloud metadata and loopback addresses becomes a note without them, which
// says how many it left out; the ingest.done event counts them.
func TestPrivateAddressesLeftOut(t *testing.T) {
	var page strings.Builder
	page.WriteString(`<!doctype html><html><head><title>Crumb</title></head><body><article><h1>Crumb</h1>
<p>A long enough paragraph about bread crumb, its holes and how a starter makes them open and glossy over many hours.</p>
<p>See <a href="http://127.0.0.1:8080/x">the admin page</a> and <a href="https://bread.example/more">more</a>.</p>`)
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&page, `<p><img src="http://169.254.169.254/%d.png"></p>`, i)
	}
	page.WriteString(`</article></body></html>`)
	r := newRig(t)
	r.w.compile = compile.Compile
	r.site.serve("/crumb", "text/html", []byte(page.String()))
	r.run()
	d := wantDone(t, r.ev.finished(t, r.add("http://site.example/crumb").ID))
	note := readFile(t, filepath.Join(r.vault, d.Note))
	if strings.Contains(note, "169.254") || strings.Contains(note, "127.0.0.1") {
		t.Errorf("the note keeps a private address:\n%.2000s", note)
	}
	if !strings.Contains(note, "Left out: 2000 images on a private or local address, 1 link to a private or local address") {
		t.Errorf("the note does not say what it left out:\n%.3000s", note)
	}
	got := map[string]int{}
	for _, x := range d.Dropped {
		got[x.What+" "+x.Reason] += x.Count
	}
	if got["image on a private or local address"] != 2000 || got["url on a private or local address"] != 1 {
		t.Errorf("dropped %+v", d.Dropped)
	}
	wantIndexable(t, r.vault)
}
