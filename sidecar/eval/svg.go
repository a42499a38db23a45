package eval

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The report's pictures are SVG written here, not drawn by a charting
// library: the page must open offline from one file, a vendored library
// would outweigh the figures it draws (the whole page is tens of KiB),
// and three kinds of chart (lines, bars, a strip of ranks) need little.

// Colours of the pictures; each has enough contrast on white and on the
// dark page the report uses when the system asks for one.
var channelColour = map[string]string{"bm25": "#2f6fb0", "dense": "#8a4fbf", "hybrid": "#c0641a"}

const controlColour = "#8c8c8c"

func colourOf(channel string) string {
	if c, ok := channelColour[channel]; ok {
		return c
	}
	return "#2a8a6a"
}

// series is one line of a recall chart: recall at k for k = 1…len(Y).
type series struct {
	Label  string
	Colour string
	Dashed bool
	Y      []float64
}

// curve is recall at k = 1…Pool from a report's ranks, or, for a run
// logged without them, the depths RecallAt holds (NaN elsewhere).
func curve(r *Report) []float64 {
	y := make([]float64, Pool)
	if len(r.Ranks) == 0 {
		for i := range y {
			y[i] = math.NaN()
		}
		for i, d := range Depths {
			y[d-1] = *r.RecallAt.at(i)
		}
		return y
	}
	for _, q := range r.Ranks {
		if q.Rank > 0 {
			for k := q.Rank; k <= Pool; k++ {
				y[k-1]++
			}
		}
	}
	for i := range y {
		y[i] /= float64(len(r.Ranks))
	}
	return y
}

// logX places rank k (1…Pool) on [x0, x1] on a log scale, where the top
// ranks, the ones a reader sees, get the room.
func logX(k float64, x0, x1 float64) float64 {
	return x0 + (x1-x0)*math.Log(k)/math.Log(Pool)
}

var rankTicks = []int{1, 2, 3, 5, 10, 20, 50}

// lineChart draws recall at k for each series, k on a log axis.
func lineChart(title string, ss []series, k int) string {
	const w, h, l, r, t, b = 520, 260, 44, 130, 14, 36
	var s strings.Builder
	svgOpen(&s, w, h, title)
	x0, x1, y0, y1 := float64(l), float64(w-r), float64(h-b), float64(t)
	yOf := func(v float64) float64 { return y0 + (y1-y0)*v }
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&s, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x0, x1, yOf(v), yOf(v))
		fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%.2f</text>`, x0-6, yOf(v)+4, v)
	}
	for _, tk := range rankTicks {
		x := logX(float64(tk), x0, x1)
		fmt.Fprintf(&s, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x, x, y0, y1)
		fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, x, y0+16, tk)
	}
	kx := logX(float64(k), x0, x1)
	fmt.Fprintf(&s, `<line class="cut" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, kx, kx, y0, y1)
	fmt.Fprintf(&s, `<text class="axis" x="%.1f" y="%d" text-anchor="middle">rank k (log scale; k = %d marked)</text>`, (x0+x1)/2, h-4, k)
	for i, se := range ss {
		var pts []string
		for j, v := range se.Y {
			if !math.IsNaN(v) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", logX(float64(j+1), x0, x1), yOf(v)))
			}
		}
		dash := ""
		if se.Dashed {
			dash = ` stroke-dasharray="5 4"`
		}
		fmt.Fprintf(&s, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`,
			se.Colour, dash, strings.Join(pts, " "), html.EscapeString(fmt.Sprintf("%s: recall@1 %s, @%d %s, @%d %s", se.Label, num(se.Y[0]), k, num(se.Y[k-1]), Pool, num(se.Y[Pool-1]))))
		ly := float64(t) + 16 + float64(i)*18
		fmt.Fprintf(&s, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`, x1+10, x1+30, ly-4, ly-4, se.Colour, dash)
		fmt.Fprintf(&s, `<text class="legend" x="%.1f" y="%.1f">%s</text>`, x1+36, ly, html.EscapeString(se.Label))
	}
	s.WriteString("</svg>")
	return s.String()
}

// bar is one question type's span recall under the control and the run.
type bar struct {
	Label        string
	N            int
	Control, Run float64
	HasControl   bool
}

// barChart draws span recall@k per type, the control's bar beside the run's.
func barChart(title string, bars []bar, runLabel, controlLabel, colour string) string {
	const h, l, t, b = 240, 44, 26, 52
	group := 76
	w := max(360, l+20+group*len(bars))
	var s strings.Builder
	svgOpen(&s, w, h, title)
	y0, y1 := float64(h-b), float64(t)
	yOf := func(v float64) float64 { return y0 + (y1-y0)*v }
	for _, v := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&s, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, l, w-8, yOf(v), yOf(v))
		fmt.Fprintf(&s, `<text class="tick" x="%d" y="%.1f" text-anchor="end">%.1f</text>`, l-6, yOf(v)+4, v)
	}
	for i, bb := range bars {
		gx := float64(l + 14 + i*group)
		draw := func(x float64, v float64, fill, who string) {
			fmt.Fprintf(&s, `<rect x="%.1f" y="%.1f" width="20" height="%.1f" fill="%s"><title>%s</title></rect>`,
				x, yOf(v), y0-yOf(v), fill, html.EscapeString(fmt.Sprintf("%s, %s: %s (n %d)", bb.Label, who, num(v), bb.N)))
		}
		if bb.HasControl {
			draw(gx, bb.Control, controlColour, controlLabel)
		}
		draw(gx+22, bb.Run, colour, runLabel)
		fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, gx+21, y0+15, html.EscapeString(shorten(bb.Label, 12)))
		fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">n %d</text>`, gx+21, y0+29, bb.N)
	}
	lx := float64(l)
	if controlLabel != "" {
		fmt.Fprintf(&s, `<rect x="%.1f" y="6" width="12" height="12" fill="%s"/><text class="legend" x="%.1f" y="16">%s</text>`, lx, controlColour, lx+16, html.EscapeString(controlLabel))
		lx += 30 + 7*float64(len(controlLabel))
	}
	fmt.Fprintf(&s, `<rect x="%.1f" y="6" width="12" height="12" fill="%s"/><text class="legend" x="%.1f" y="16">%s</text>`, lx, colour, lx+16, html.EscapeString(runLabel))
	s.WriteString("</svg>")
	return s.String()
}

// stripRow is one run's questions placed at the rank their answer reached.
type stripRow struct {
	Label  string
	Colour string
	Ranks  []Ranked
}

// strip draws each question as a mark at its answer's rank (log axis),
// those not in the pool in a column of their own, one row per run.
func strip(title string, rows []stripRow, k int) string {
	const l, r, rowH, t = 110, 70, 44, 8
	w := 620
	h := t + rowH*len(rows) + 30
	var s strings.Builder
	svgOpen(&s, w, h, title)
	x0, x1 := float64(l), float64(w-r)
	missX := x1 + 36
	bottom := float64(t + rowH*len(rows))
	kx := logX(float64(k)+0.5, x0, x1)
	fmt.Fprintf(&s, `<rect class="topk" x="%.1f" y="%d" width="%.1f" height="%.1f"/>`, x0-6, t, kx-x0+6, bottom-float64(t))
	for _, tk := range rankTicks {
		x := logX(float64(tk), x0, x1)
		fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, x, bottom+16, tk)
	}
	fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">missed</text>`, missX, bottom+16)
	for i, row := range rows {
		cy := float64(t + rowH*i + rowH/2)
		fmt.Fprintf(&s, `<text class="legend" x="%d" y="%.1f" text-anchor="end">%s</text>`, l-12, cy+4, html.EscapeString(shorten(row.Label, 14)))
		fmt.Fprintf(&s, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x0, missX+10, cy, cy)
		stack := map[int]int{}
		for _, q := range row.Ranks {
			x := missX
			if q.Rank > 0 {
				x = logX(float64(q.Rank), x0, x1)
			}
			n := stack[q.Rank]
			stack[q.Rank]++
			// Questions at one rank stack up and down from the row's line.
			dy := float64((n+1)/2) * 3.2
			if n%2 == 1 {
				dy = -dy
			}
			at := "not in the pool"
			if q.Rank > 0 {
				at = fmt.Sprintf("rank %d", q.Rank)
			}
			fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="2.6" fill="%s" fill-opacity="0.75"><title>%s</title></circle>`,
				x, cy+math.Max(-rowH/2+4, math.Min(rowH/2-4, dy)), row.Colour, html.EscapeString(fmt.Sprintf("%s [%s]: %s", q.Query, q.Type, at)))
		}
	}
	s.WriteString("</svg>")
	return s.String()
}

func svgOpen(s *strings.Builder, w, h int, title string) {
	fmt.Fprintf(s, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s"><title>%s</title>`,
		w, h, w, h, html.EscapeString(title), html.EscapeString(title))
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.3f", v)
}
