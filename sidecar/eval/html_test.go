package eval

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// ranked is a report's questions with the ranks given, types in turn.
func ranked(rep *Report, types []string, ranks ...int) *Report {
	for i, r := range ranks {
		rep.Ranks = append(rep.Ranks, Ranked{Query: "question " + string(rune('a'+i)), Type: types[i%len(types)], Expected: "n.md", Rank: r, Reachable: true})
	}
	return rep
}

func TestHTMLShadesAgainstTheControlAndDrawsThePictures(t *testing.T) {
	// 20 questions: resolution 0.25. The run finds every paraphrase
	// question (+1.0: gain) and loses every exact_term one (−1.0: loss);
	// overall it is the same.
	types := []string{"paraphrase", "exact_term"}
	control := entry("off", "mine", map[string][]int{"paraphrase": ones(0, 10), "exact_term": ones(10, 0)})
	run := entry("on", "mine", map[string][]int{"paraphrase": ones(10, 0), "exact_term": ones(0, 10)})
	control.Report = ranked(control.Report, types, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 1, 0, 2, 0, 1, 0, 4, 0, 1)
	run.Report = ranked(run.Report, types, 1, 0, 2, 7, 1, 0, 1, 0, 3, 0, 1, 0, 1, 0, 1, 0, 2, 0, 1, 0)
	run.Report.Ranks[0].Query = `<script>alert("x")</script> & more`
	run.Time = control.Time.Add(time.Minute)
	page := string(HTML(logOf(t, control, run), "off", time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)))

	row := regexp.MustCompile(`<tr><th scope="row"[^>]*>on</th>.*?</tr>`).FindString(page)
	if row == "" {
		t.Fatalf("no row for the run in\n%s", page)
	}
	for _, want := range []string{`<td class="same">0.500`, `<td class="loss">0.000<small> (-1.000)`, `<td class="gain">1.000<small> (+1.000)`} {
		if !strings.Contains(row, want) {
			t.Errorf("the run's row lacks %s:\n%s", want, row)
		}
	}
	if strings.Contains(regexp.MustCompile(`<tr><th scope="row"[^>]*>off</th>.*?</tr>`).FindString(page), `<td class="gain"`) {
		t.Error("the control's own row is shaded")
	}
	if n := strings.Count(page, "<svg "); n != 3 {
		t.Errorf("%d pictures, want 3 (recall at k, types, ranks)", n)
	}
	// The strip holds each question of both runs; the misses list the
	// run's, with the rank each reached and the control's.
	if n := strings.Count(page, "<circle "); n != 40 {
		t.Errorf("%d marks in the strip, want 40", n)
	}
	if !strings.Contains(page, "10 of 20 questions missed the top 5") || !strings.Contains(page, "<td>7</td><td>2</td>") {
		t.Errorf("misses not listed with both ranks")
	}
	if !strings.Contains(page, `may not replace <b>off</b>`) {
		t.Error("no verdict of the decision rule")
	}
	// Nothing the page would fetch or run: it opens offline as it is.
	if strings.Contains(page, "<script") || regexp.MustCompile(`(?i)\b(src|href)=|url\(|@import`).MatchString(page) {
		t.Error("the page runs a script or fetches something")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; more") {
		t.Error("a question's text is not escaped")
	}
}

func TestHTMLWithoutRanksOrControl(t *testing.T) {
	// A run logged before ranks were: its curve has the five depths.
	old := entry("", "gold.dev", map[string][]int{"t": ones(3, 1)})
	old.Report.RecallAt = RecallAt{At1: 0.25, At5: 0.75, At10: 0.75, At20: 1, At50: 1}
	page := string(HTML(logOf(t, old), "", time.Now()))
	if n := strings.Count(page, "<svg "); n != 2 {
		t.Errorf("%d pictures, want 2 (no ranks: no strip)", n)
	}
	if strings.Contains(page, "Decision rule") || strings.Contains(page, `<td class="gain"`) {
		t.Error("shaded or judged without a control")
	}
	if empty := string(HTML(nil, "", time.Now())); !strings.Contains(empty, "no runs yet") {
		t.Error("an empty log says nothing")
	}
}
