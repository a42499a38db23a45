package eval

import (
	"cmp"
	"fmt"
	"html"
	"slices"
	"strings"
	"time"
)

// HTML renders an eval log as one self-contained page (no script, no
// request: it reads offline): per question set, the runs as rows and the
// metrics as columns, each cell shaded by its change against the control
// run of its channel (green a gain, magenta a loss, grey within what the
// set's size resolves), then the newest run's pictures against the
// control: recall at k from 1 to Pool per channel, span recall by type,
// each question's rank, and the misses. With a control, the decision
// rule's verdict on the newest run comes first.
func HTML(log []LogEntry, control string, generated time.Time) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
		`<title>Quire eval report</title><style>` + pageCSS + `</style></head><body><main>`)
	fmt.Fprintf(&b, `<h1>How well Quire searches</h1><p class="meta">Generated %s from %d logged run(s).`, generated.UTC().Format("2006-01-02 15:04 UTC"), len(log))
	if control != "" {
		fmt.Fprintf(&b, ` Control: <b>%s</b>.`, esc(control))
	}
	b.WriteString(` A cell is <span class="gain">green</span> where it gains on the control, <span class="loss">magenta</span> where it loses, ` +
		`<span class="same">grey</span> within the set's resolution (five questions' worth: ±5/n).</p>`)
	sets := groupSets(log)
	if len(sets) == 0 {
		b.WriteString(`<p>The log holds no runs yet: run <code>quire eval --gold FILE</code> first.</p>`)
	}
	if control != "" && len(sets) > 0 {
		writeVerdict(&b, log, control, mainChannel(log))
	}
	for _, s := range sets {
		writeSet(&b, s, control)
	}
	b.WriteString(`</main></body></html>`)
	return []byte(b.String())
}

// set is a question set's runs: the newest entry per run name and
// channel, all on the set's newest gold file.
type set struct {
	Name    string
	N       int
	Entries []*LogEntry
	// Dropped counts entries left out as runs on other questions.
	Dropped int
}

func groupSets(log []LogEntry) []*set {
	var order []string
	newest := map[string]*LogEntry{}
	for i := range log {
		e := &log[i]
		if newest[e.Set] == nil {
			order = append(order, e.Set)
		}
		newest[e.Set] = e
	}
	var out []*set
	for _, name := range order {
		s := &set{Name: name, N: newest[name].Report.Queries}
		byKey := map[[2]string]*LogEntry{}
		for i := range log {
			e := &log[i]
			if e.Set != name {
				continue
			}
			if e.GoldHash != newest[name].GoldHash {
				s.Dropped++
				continue
			}
			byKey[[2]string{e.Name, e.Report.Channel}] = e
		}
		for _, e := range byKey {
			s.Entries = append(s.Entries, e)
		}
		slices.SortFunc(s.Entries, func(a, b *LogEntry) int {
			return cmp.Or(cmp.Compare(channelRank(a.Report.Channel), channelRank(b.Report.Channel)), strings.Compare(a.Report.Channel, b.Report.Channel), a.Time.Compare(b.Time))
		})
		out = append(out, s)
	}
	return out
}

func channelRank(c string) int {
	switch c {
	case "bm25":
		return 0
	case "dense":
		return 1
	case "hybrid":
		return 2
	}
	return 3
}

// mainChannel is the channel the verdict and the bars are read on:
// hybrid, the default, when the log has it.
func mainChannel(log []LogEntry) string {
	ch := ""
	for _, e := range log {
		if e.Report.Channel == "hybrid" {
			return "hybrid"
		}
		ch = e.Report.Channel
	}
	return ch
}

func writeVerdict(b *strings.Builder, log []LogEntry, control, channel string) {
	d, err := Decide(log, control, "", channel, DefaultRule)
	if err != nil {
		fmt.Fprintf(b, `<section class="verdict"><h2>Decision rule</h2><p>Not applied: %s.</p></section>`, esc(err.Error()))
		return
	}
	cls, word := "refused", "may not replace"
	if d.Accept {
		cls, word = "accepted", "may replace"
	}
	fmt.Fprintf(b, `<section class="verdict %s"><h2>Decision rule: <b>%s</b> %s <b>%s</b> (%s)</h2><ul>`, cls, esc(runName(d.Run)), word, esc(runName(d.Control)), esc(d.Channel))
	for _, c := range d.Conditions {
		mark := "✓"
		if !c.Held {
			mark = "✗"
		}
		fmt.Fprintf(b, `<li class="%t"><span aria-hidden="true">%s</span> %s</li>`, c.Held, mark, esc(c.Text))
	}
	b.WriteString(`</ul></section>`)
}

// column is one metric of a run's row.
type column struct {
	Name  string
	Of    func(*Report) (v float64, n int, ok bool)
	Count bool // an integer count, compared as a share of n
}

func scoreColumn(name string, f func(Scores) float64) column {
	return column{Name: name, Of: func(r *Report) (float64, int, bool) { return f(r.Scores), r.Queries, true }}
}

func groupColumn(prefix, key string, of func(*Report) map[string]*Metrics) column {
	return column{Name: prefix + key, Of: func(r *Report) (float64, int, bool) {
		m := of(r)[key]
		if m == nil {
			return 0, 0, false
		}
		return m.SpanRecallAtK, m.N, true
	}}
}

func columns(s *set) []column {
	cols := []column{
		scoreColumn("span@k", func(x Scores) float64 { return x.SpanRecallAtK }),
		scoreColumn("span MRR", func(x Scores) float64 { return x.SpanMRR }),
		scoreColumn("note@k", func(x Scores) float64 { return x.NoteRecallAtK }),
		scoreColumn("nDCG@k", func(x Scores) float64 { return x.NDCGAtK }),
		scoreColumn("recall@50", func(x Scores) float64 { return x.RecallAt.At50 }),
		{Name: "reachable", Count: true, Of: func(r *Report) (float64, int, bool) { return float64(r.Reachable), r.Queries, true }},
	}
	types, dirs := map[string]bool{}, map[string]bool{}
	for _, e := range s.Entries {
		for t := range e.Report.ByType {
			types[t] = true
		}
		for d := range e.Report.ByDirection {
			dirs[d] = true
		}
	}
	for _, t := range sortedTypes(types) {
		cols = append(cols, groupColumn("", t, func(r *Report) map[string]*Metrics { return r.ByType }))
	}
	for _, d := range sortedTypes(dirs) {
		cols = append(cols, groupColumn("", d, func(r *Report) map[string]*Metrics { return r.ByDirection }))
	}
	return cols
}

func writeSet(b *strings.Builder, s *set, control string) {
	fmt.Fprintf(b, `<section class="set"><h2>%s <small>%d questions, resolution ±%.3f</small></h2>`, esc(setName(s.Name)), s.N, Resolution(s.N))
	if s.Dropped > 0 {
		fmt.Fprintf(b, `<p class="meta">%d older run(s) on another version of these questions left out.</p>`, s.Dropped)
	}
	cols := columns(s)
	controls := map[string]*LogEntry{}
	for _, e := range s.Entries {
		if control != "" && e.Name == control {
			controls[e.Report.Channel] = e
		}
	}
	// A region that scrolls sideways takes the keyboard's focus (axe:
	// scrollable-region-focusable).
	fmt.Fprintf(b, `<div class="scroll" tabindex="0" role="region" aria-label="%s: runs and metrics">`, esc(setName(s.Name)))
	b.WriteString(`<table><caption>Span recall and the other metrics at k; the type and direction columns are span recall@k. Shading: change against the control of the same channel.</caption><thead><tr><th scope="col">run</th><th scope="col">channel</th>`)
	for _, c := range cols {
		fmt.Fprintf(b, `<th scope="col">%s</th>`, esc(c.Name))
	}
	b.WriteString(`</tr></thead><tbody>`)
	for _, e := range s.Entries {
		ctl := controls[e.Report.Channel]
		fmt.Fprintf(b, `<tr><th scope="row" title="%s">%s</th><td>%s</td>`, esc(describe(e)), esc(runName(e.Name)), esc(e.Report.Channel))
		for _, c := range cols {
			v, n, ok := c.Of(e.Report)
			if !ok {
				b.WriteString(`<td class="none">–</td>`)
				continue
			}
			text := fmt.Sprintf("%.3f", v)
			if c.Count {
				text = fmt.Sprintf("%d/%d", int(v), n)
			}
			cls, delta := "", ""
			if ctl != nil && ctl != e {
				if cv, _, cok := c.Of(ctl.Report); cok {
					d := v - cv
					if c.Count {
						d /= float64(max(n, 1))
					}
					cls = shade(d, s.N)
					delta = fmt.Sprintf(" (%+.3f)", d)
					if c.Count {
						delta = fmt.Sprintf(" (%+d)", int(v-cv))
					}
				}
			}
			fmt.Fprintf(b, `<td class="%s">%s<small>%s</small></td>`, cls, text, delta)
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table></div>`)
	writePictures(b, s, control)
	b.WriteString(`</section>`)
}

// shade names a change's colour: a gain or a loss beyond what n
// questions resolve, else the same.
func shade(d float64, n int) string {
	switch r := Resolution(n); {
	case d > r+1e-9:
		return "gain"
	case d < -r-1e-9:
		return "loss"
	}
	return "same"
}

func writePictures(b *strings.Builder, s *set, control string) {
	// The run pictured is the set's newest other than the control.
	var run *LogEntry
	for _, e := range s.Entries {
		if (control == "" || e.Name != control) && (run == nil || e.Time.After(run.Time)) {
			run = e
		}
	}
	if run == nil {
		return
	}
	var runs, ctls []*LogEntry
	for _, e := range s.Entries {
		switch {
		case e.Name == run.Name:
			runs = append(runs, e)
		case control != "" && e.Name == control:
			ctls = append(ctls, e)
		}
	}
	p, mainRun, mainCtl := draw(setName(s.Name), runs, ctls)
	k, ch := mainRun.Report.K, mainRun.Report.Channel
	b.WriteString(`<div class="pictures">`)
	fmt.Fprintf(b, `<figure>%s<figcaption>Recall at k, k from 1 to %d, per channel (dashed: the control).</figcaption></figure>`, p.Recall, Pool)
	fmt.Fprintf(b, `<figure>%s<figcaption>Span recall@%d by question type, %s (grey: the control).</figcaption></figure>`, p.Types, k, esc(ch))
	if p.Ranks != "" {
		fmt.Fprintf(b, `<figure class="wide">%s<figcaption>The rank each question's answer reached, %s (shaded: the top %d; hover a mark for its question).</figcaption></figure>`,
			p.Ranks, esc(ch), k)
	}
	b.WriteString(`</div>`)
	writeMisses(b, mainRun, mainCtl)
}

// Pictures are a run's three charts against its control, as SVG: recall
// at k from 1 to Pool per channel, span recall@k by question type, and
// the rank each question's answer reached (empty for a run logged
// without its ranks).
type Pictures struct {
	Recall, Types, Ranks string
}

// Draw draws the pictures of a run against a control, each given as its
// entries, one per channel, in channel order (bm25, dense, hybrid): the
// run at least one, the control maybe none. The bars and the strip read
// the run's last channel, hybrid when it has it. The report and the plugin's Evaluate
// search view draw with it, so the two show the same pictures.
func Draw(title string, run, control []*LogEntry) Pictures {
	p, _, _ := draw(title, run, control)
	return p
}

// draw is Draw, also returning the run's and the control's entries of the
// channel the bars and the strip read (the control's nil without one).
func draw(title string, run, control []*LogEntry) (Pictures, *LogEntry, *LogEntry) {
	mainRun := run[len(run)-1]
	ch := mainRun.Report.Channel
	var ss []series
	var mainCtl *LogEntry
	for _, e := range run {
		ss = append(ss, series{Label: runName(e.Name) + " " + e.Report.Channel, Colour: colourOf(e.Report.Channel), Y: curve(e.Report)})
	}
	for _, e := range control {
		ss = append(ss, series{Label: runName(e.Name) + " " + e.Report.Channel, Colour: colourOf(e.Report.Channel), Dashed: true, Y: curve(e.Report)})
		if e.Report.Channel == ch {
			mainCtl = e
		}
	}
	k := mainRun.Report.K
	var p Pictures
	p.Recall = lineChart(title+": recall at k", ss, k)
	var bars []bar
	for _, t := range sortedTypes(mainRun.Report.ByType) {
		m := mainRun.Report.ByType[t]
		bb := bar{Label: t, N: m.N, Run: m.SpanRecallAtK}
		if mainCtl != nil {
			if cm := mainCtl.Report.ByType[t]; cm != nil {
				bb.Control, bb.HasControl = cm.SpanRecallAtK, true
			}
		}
		bars = append(bars, bb)
	}
	ctlLabel := ""
	if mainCtl != nil {
		ctlLabel = runName(mainCtl.Name)
	}
	p.Types = barChart(title+": span recall by type", bars, runName(mainRun.Name), ctlLabel, colourOf(ch))
	rows := []stripRow{}
	if mainCtl != nil {
		rows = append(rows, stripRow{Label: runName(mainCtl.Name), Colour: controlColour, Ranks: mainCtl.Report.Ranks})
	}
	rows = append(rows, stripRow{Label: runName(mainRun.Name), Colour: colourOf(ch), Ranks: mainRun.Report.Ranks})
	if len(mainRun.Report.Ranks) > 0 {
		p.Ranks = strip(title+": rank of each answer", rows, k)
	}
	return p, mainRun, mainCtl
}

func writeMisses(b *strings.Builder, run, ctl *LogEntry) {
	k := run.Report.K
	before := map[string]int{}
	if ctl != nil {
		for _, q := range ctl.Report.Ranks {
			before[q.Type+"\x00"+q.Query] = q.Rank
		}
	}
	var misses []Ranked
	for _, q := range run.Report.Ranks {
		if q.Rank == 0 || q.Rank > k {
			misses = append(misses, q)
		}
	}
	if len(run.Report.Ranks) == 0 {
		return
	}
	fmt.Fprintf(b, `<details class="misses"%s><summary>%d of %d questions missed the top %d (%s, %s)</summary>`,
		map[bool]string{true: " open", false: ""}[len(misses) <= 12], len(misses), len(run.Report.Ranks), k, esc(runName(run.Name)), esc(run.Report.Channel))
	if len(misses) == 0 {
		b.WriteString(`</details>`)
		return
	}
	b.WriteString(`<table><thead><tr><th scope="col">question</th><th scope="col">type</th><th scope="col">note</th><th scope="col">rank reached</th>`)
	if ctl != nil {
		fmt.Fprintf(b, `<th scope="col">rank under %s</th>`, esc(runName(ctl.Name)))
	}
	b.WriteString(`</tr></thead><tbody>`)
	for _, q := range misses {
		fmt.Fprintf(b, `<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td>`, esc(q.Query), esc(q.Type), esc(q.Expected), rankText(q.Rank, q.Reachable))
		if ctl != nil {
			if r, ok := before[q.Type+"\x00"+q.Query]; ok {
				fmt.Fprintf(b, `<td>%s</td>`, rankText(r, true))
			} else {
				b.WriteString(`<td>–</td>`)
			}
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table></details>`)
}

func rankText(r int, reachable bool) string {
	switch {
	case !reachable:
		return "unreachable (no passage holds the answer whole)"
	case r == 0:
		return fmt.Sprintf("not in the top %d", Pool)
	}
	return fmt.Sprint(r)
}

// describe is a run's configuration in one line, for its row's tooltip.
func describe(e *LogEntry) string {
	c := e.Config
	commit := e.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	return fmt.Sprintf("%s · quire %s %s · rerank %s · dense weight %g, pool %d, per note %d, coordination %s · fields title %g aliases %g headings %g exact %g · %s · gold sha256 %.12s",
		e.Time.UTC().Format("2006-01-02 15:04"), e.Version, commit, c.Rerank, c.Fusion.DenseWeight, c.Fusion.Pool, c.Fusion.PerNote, c.Fusion.Coordination,
		c.Fields.Title, c.Fields.Aliases, c.Fields.Headings, c.Fields.Exact, c.Fingerprint, e.GoldHash)
}

func runName(n string) string {
	if n == "" {
		return "(unnamed)"
	}
	return n
}

func setName(n string) string {
	if n == "" {
		return "(unnamed set)"
	}
	return n
}

func esc(s string) string { return html.EscapeString(s) }

const pageCSS = `
:root{--bg:#fff;--fg:#1d1d1f;--muted:#5c5c66;--line:#d9d9de;--gain:#c9ecd2;--loss:#f6cbe6;--same:#ececf0;--ok:#1d6b34;--bad:#9b1565}
@media (prefers-color-scheme: dark){:root{--bg:#1b1b1f;--fg:#ececf0;--muted:#b0b0ba;--line:#45454d;--gain:#1f4d2c;--loss:#5c1d43;--same:#33333a;--ok:#8fe0a5;--bad:#f5a3d2}}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.2em;margin:28px 0 8px}h2 small{color:var(--muted);font-weight:normal;font-size:.75em}
.meta{color:var(--muted)}
.gain{background:var(--gain)}.loss{background:var(--loss)}.same{background:var(--same)}
span.gain,span.loss,span.same{padding:0 4px;border-radius:3px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:6px 0}
caption{text-align:left;color:var(--muted);font-size:.85em;padding-bottom:4px}
th,td{border:1px solid var(--line);padding:3px 7px;text-align:right;white-space:nowrap}
th[scope=row],td:first-child{text-align:left}
.misses td,.misses th{white-space:normal;text-align:left}
td small{color:var(--muted);margin-left:3px}
.verdict{border:2px solid var(--line);border-radius:6px;padding:4px 16px;margin-top:18px}
.verdict.accepted{border-color:var(--ok)}.verdict.refused{border-color:var(--bad)}
.verdict ul{list-style:none;padding-left:4px}.verdict li.true span{color:var(--ok)}.verdict li.false span{color:var(--bad)}
.pictures{display:flex;flex-wrap:wrap;gap:12px 28px;align-items:flex-start}
figure{margin:8px 0}figcaption{color:var(--muted);font-size:.85em;max-width:520px}
svg{display:block;max-width:100%;height:auto}
svg text{fill:var(--fg);font:11px system-ui,sans-serif}svg .axis,svg .tick{fill:var(--muted)}
svg .grid{stroke:var(--line);stroke-width:1}svg .cut{stroke:var(--muted);stroke-dasharray:2 3}
svg .topk{fill:var(--same)}
details summary{cursor:pointer;margin:8px 0}
`
