package compile

import (
	"bytes"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/vault"
)

// The daily view: TodayNote, a note Quire regenerates after each source
// it ingests, saying what was ingested today, what waits in the queue and
// which review items are open, each with a box to tick. It is never
// edited by hand: the user's ticks are all Quire reads back. A ticked
// review item is marked resolved (in its own frontmatter, as the plugin's
// Resolve does) and leaves the list. A view edited otherwise is left as
// it is, and the result's warning says so.

// TodayNote is the daily view, in the generated folder.
const TodayNote = "Today.md"

// TodayOptions say what the daily view shows.
type TodayOptions struct {
	Vault, Folder string
	// Now is the day shown; zero means now. "Today" is its local day.
	Now time.Time
	// Items is the ingest queue.
	Items []ingest.Item
	// Private holds the vault's private notes: the view, which is not
	// private, names none of them, nor a note or review item made from
	// one (index.md and log.md leave them out too).
	Private vault.Private
}

// TodayResult is what WriteToday did.
type TodayResult struct {
	Note     string   `json:"note,omitempty"` // the view's vault path, "" when not written
	Resolved []string `json:"resolved"`       // review items the user's ticks resolved
	Warning  string   `json:"warning,omitempty"`
}

type todayFront struct {
	Quire  string `yaml:"quire"`
	Kind   string `yaml:"quire_kind"`
	Format int    `yaml:"quire_format"`
	Day    string `yaml:"day"`
	Hash   string `yaml:"quire_hash"`
}

var (
	tickBox = regexp.MustCompile(`(?m)^- \[[xX]\] `)
	ticked  = regexp.MustCompile(`(?m)^- \[[xX]\] \[\[([^\]|#]+)`)
)

// untick clears every box: the view as Quire wrote it, before the user
// ticked anything.
func untick(b []byte) []byte { return tickBox.ReplaceAll(b, []byte("- [ ] ")) }

// WriteToday regenerates the daily view of the generated folder, after
// resolving the review items ticked in it. The folder must be Quire's.
func WriteToday(opt TodayOptions) (TodayResult, error) {
	res := TodayResult{Resolved: []string{}}
	if err := CheckOwned(opt.Vault, opt.Folder); err != nil {
		return res, err
	}
	dir, err := openFolder(opt.Vault, opt.Folder)
	if err != nil {
		return res, err
	}
	defer dir.close()
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	at := dir.vaultPath(TodayNote)
	old, err := dir.read(TodayNote)
	if err != nil {
		return res, err
	}
	if old != nil {
		if m, mine := ours(untick(old)); !mine || m.Kind != "today" {
			res.Warning = at + " was edited beyond its boxes, so Quire did not regenerate it"
			return res, nil
		}
		for _, m := range ticked.FindAllSubmatch(old, -1) {
			p := strings.TrimSpace(string(m[1])) + ".md"
			ok, err := dir.resolveReview(p, opt.Now)
			if err != nil {
				return res, err
			}
			if ok {
				res.Resolved = append(res.Resolved, p)
			}
		}
	}
	body, err := dir.today(opt)
	if err != nil {
		return res, err
	}
	doc, err := seal(todayFront{Quire: Marker, Kind: "today", Format: Format, Day: opt.Now.Format("2006-01-02")}, body)
	if err != nil {
		return res, err
	}
	if !bytes.Equal(doc, old) {
		if err := dir.write(TodayNote, doc, true); err != nil {
			return res, err
		}
	}
	res.Note = at
	return res, nil
}

// resolveReview marks the review item at the vault path p resolved, when
// it is one of Quire's, open, and nobody edited it.
func (f *folder) resolveReview(p string, now time.Time) (bool, error) {
	rel, ok := strings.CutPrefix(p, f.rel+"/")
	if !ok || !strings.HasPrefix(rel, "Review/") {
		return false, nil
	}
	b, err := f.read(rel)
	if err != nil || b == nil {
		return false, err
	}
	if m, mine := ours(b); !mine || m.Kind != "review" {
		return false, nil
	}
	var front yaml.Node
	if noFront(b, &front) || len(front.Content) == 0 || front.Content[0].Kind != yaml.MappingNode {
		return false, nil
	}
	fm := front.Content[0]
	set := func(k, v string) {
		for i := 0; i+1 < len(fm.Content); i += 2 {
			if fm.Content[i].Value == k {
				fm.Content[i+1].SetString(v)
				return
			}
		}
		key, val := &yaml.Node{}, &yaml.Node{}
		key.SetString(k)
		val.SetString(v)
		fm.Content = append(fm.Content, key, val)
	}
	if status(fm) != "open" {
		return false, nil
	}
	set("status", "resolved")
	set("decided", now.Format("2006-01-02"))
	set("quire_hash", "")
	_, body, _ := parsePage(b)
	nb, err := seal(fm, body)
	if err != nil {
		return false, err
	}
	return true, f.write(rel, nb, true)
}

// status is a review item's status: open unless resolved or dismissed.
func status(fm *yaml.Node) string {
	for i := 0; i+1 < len(fm.Content); i += 2 {
		if v := fm.Content[i+1].Value; fm.Content[i].Value == "status" && (v == "resolved" || v == "dismissed") {
			return v
		}
	}
	return "open"
}

// today renders the view's body.
func (f *folder) today(opt TodayOptions) (string, error) {
	day := opt.Now.Format("2006-01-02")
	var done, failed, waiting []string
	items := slices.Clone(opt.Items)
	slices.SortStableFunc(items, func(a, b ingest.Item) int { return a.Updated.Compare(b.Updated) })
	hidden := 0
	for _, it := range items {
		today := it.Updated.In(opt.Now.Location()).Format("2006-01-02") == day
		if PrivateSource(opt.Private, opt.Vault, it.Source) || it.State == ingest.StateDone && f.private(it.Result) {
			if today || it.State == ingest.StateQueued || it.State == ingest.StateRunning {
				hidden++
			}
			continue
		}
		switch {
		case it.State == ingest.StateDone && today && it.Result != "":
			done = append(done, wikilink(it.Result, strings.TrimSuffix(path.Base(it.Result), ".md"))+" — from "+plain(it.Source))
		case it.State == ingest.StateFailed && today:
			failed = append(failed, plain(it.Source)+" — "+plain(it.LastError))
		case it.State == ingest.StateQueued || it.State == ingest.StateRunning:
			waiting = append(waiting, plain(it.Source)+" — "+string(it.State))
		}
	}
	var review []string
	names, err := f.list("Review")
	if err != nil {
		return "", err
	}
	for _, n := range names {
		b, err := f.read(n)
		if err != nil {
			return "", err
		}
		var front yaml.Node
		m, _ := ours(b)
		if m.Quire != Marker || m.Kind != "review" || noFront(b, &front) || len(front.Content) == 0 || status(front.Content[0]) != "open" {
			continue
		}
		if m.Private {
			hidden++
			continue
		}
		var r struct {
			Reason string `yaml:"reason"`
		}
		_ = front.Decode(&r)
		review = append(review, "[ ] "+wikilink(f.vaultPath(n), strings.TrimSuffix(path.Base(n), ".md"))+" — "+plain(r.Reason))
	}
	var b strings.Builder
	b.WriteString("\n# Quire today, " + day + "\n\n")
	b.WriteString("Quire regenerates this note after each source it reads: do not edit it. Tick a review item once you have dealt with it, and Quire marks it resolved.\n\n")
	b.WriteString("## Ingested today\n\n")
	bullets(&b, done)
	if len(failed) > 0 {
		b.WriteString("## Failed today\n\n")
		bullets(&b, failed)
	}
	b.WriteString("## Waiting in the queue\n\n")
	bullets(&b, waiting)
	b.WriteString("## To review\n\n")
	bullets(&b, review)
	if hidden > 0 {
		b.WriteString(itoa(hidden) + " more about private notes: this note does not name them.\n")
	}
	return b.String(), nil
}

// private reports whether the note at the vault path p (a source note
// Quire wrote) is marked private.
func (f *folder) private(p string) bool {
	rel, ok := strings.CutPrefix(p, f.rel+"/")
	if !ok {
		return false
	}
	b, err := f.read(rel)
	if err != nil || b == nil {
		return false
	}
	m, _, _ := parsePage(b)
	return m.Private
}

// noFront reports whether b's frontmatter cannot be decoded into v.
func noFront(b []byte, v any) bool {
	_, err := vault.DecodeFrontmatter(b, v)
	return err != nil
}
