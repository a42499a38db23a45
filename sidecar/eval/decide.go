package eval

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Resolution is the smallest change in a share that n questions resolve:
// about five of them (±0.03 for 167 questions), at most the whole share.
// The report greys changes within it.
func Resolution(n int) float64 {
	return min(1, 5/float64(max(n, 1)))
}

// Rule is README's decision rule ("Figures"): a ranking change replaces
// a default only if, on one channel, span recall@k falls on no set, its
// mean over the sets gains at least MinGain (or the sets' resolution,
// when fewer questions cannot resolve MinGain), no question type pooled
// over the sets loses more than MaxTypeLoss, and every set keeps its
// reachable count.
type Rule struct {
	MinGain, MaxTypeLoss float64
}

// DefaultRule is the rule README fixed before any change was measured.
var DefaultRule = Rule{MinGain: 0.03, MaxTypeLoss: 0.05}

// SetChange is one set's span recall under the control and the run.
type SetChange struct {
	Set                    string
	N                      int
	Control, Run           float64
	ReachControl, ReachRun int
	ControlEntry, RunEntry *LogEntry
}

// TypeChange is one question type's span recall pooled over the sets.
type TypeChange struct {
	Type         string
	N            int
	Control, Run float64
}

// Decision is the rule's verdict on a run against a control, and why.
type Decision struct {
	Control, Run string
	Channel      string
	Accept       bool
	Sets         []SetChange
	Types        []TypeChange
	// MeanControl and MeanRun are span recall@k averaged over the sets;
	// MinGain is the gain the rule asked of it.
	MeanControl, MeanRun, MinGain float64
	// Conditions are the rule's four, in order, each with whether it held.
	Conditions []Condition
}

// Condition is one clause of the rule and what the figures said.
type Condition struct {
	Held bool
	Text string
}

// Latest is the newest entry of the log with this name on this channel,
// for set ("" any set).
func Latest(log []LogEntry, name, set, channel string) *LogEntry {
	for i := len(log) - 1; i >= 0; i-- {
		e := &log[i]
		if e.Name == name && e.Report.Channel == channel && (set == "" || e.Set == set) {
			return e
		}
	}
	return nil
}

// Pair matches, set by set, the newest run named run with the newest
// control named control on one channel. With run "" the run is the
// newest entry on the channel not named control. Sets the control lacks
// are an error, as are runs on other questions than the control's.
func Pair(log []LogEntry, control, run, channel string) ([]SetChange, string, error) {
	if run == "" {
		for i := len(log) - 1; i >= 0; i-- {
			if e := log[i]; e.Name != control && e.Report.Channel == channel {
				run = e.Name
				break
			}
		}
		if run == "" && Latest(log, "", "", channel) == nil {
			return nil, "", fmt.Errorf("no run on channel %s other than %q in the log", channel, control)
		}
	}
	var sets []string
	seen := map[string]bool{}
	for _, e := range log {
		if e.Name == run && e.Report.Channel == channel && !seen[e.Set] {
			seen[e.Set] = true
			sets = append(sets, e.Set)
		}
	}
	var out []SetChange
	for _, s := range sets {
		r, c := Latest(log, run, s, channel), Latest(log, control, s, channel)
		if c == nil {
			return nil, run, fmt.Errorf("set %s: no control run named %q on channel %s", s, control, channel)
		}
		if r.GoldHash != "" && c.GoldHash != "" && r.GoldHash != c.GoldHash {
			return nil, run, fmt.Errorf("set %s: the run and the control scored different gold files (sha256 %.12s, %.12s)", s, r.GoldHash, c.GoldHash)
		}
		out = append(out, SetChange{Set: s, N: r.Report.Queries, Control: c.Report.SpanRecallAtK, Run: r.Report.SpanRecallAtK,
			ReachControl: c.Report.Reachable, ReachRun: r.Report.Reachable, ControlEntry: c, RunEntry: r})
	}
	if len(out) == 0 {
		return nil, run, fmt.Errorf("no run named %q on channel %s in the log", run, channel)
	}
	return out, run, nil
}

// Decide applies rule to the run named run (with "", the newest other
// than the control) against the control, over every set the run has.
func Decide(log []LogEntry, control, run, channel string, rule Rule) (*Decision, error) {
	sets, run, err := Pair(log, control, run, channel)
	if err != nil {
		return nil, err
	}
	d := &Decision{Control: control, Run: run, Channel: channel, Sets: sets}
	total := 0
	var fell, lostReach []string
	pooled := map[string]*[3]int{} // type → n, control hits, run hits
	for _, s := range sets {
		total += s.N
		d.MeanControl += s.Control / float64(len(sets))
		d.MeanRun += s.Run / float64(len(sets))
		if s.Run < s.Control-1e-9 {
			fell = append(fell, fmt.Sprintf("%s %.3f → %.3f", s.Set, s.Control, s.Run))
		}
		if s.ReachRun < s.ReachControl {
			lostReach = append(lostReach, fmt.Sprintf("%s %d → %d", s.Set, s.ReachControl, s.ReachRun))
		}
		for t, m := range s.RunEntry.Report.ByType {
			p := pooled[t]
			if p == nil {
				p = &[3]int{}
				pooled[t] = p
			}
			p[0] += m.N
			p[2] += hits(m)
			if cm := s.ControlEntry.Report.ByType[t]; cm != nil {
				p[1] += hits(cm)
			}
		}
	}
	var lostTypes []string
	for _, t := range sortedTypes(pooled) {
		p := pooled[t]
		tc := TypeChange{Type: t, N: p[0], Control: round(float64(p[1]) / float64(p[0])), Run: round(float64(p[2]) / float64(p[0]))}
		d.Types = append(d.Types, tc)
		if tc.Run < tc.Control-rule.MaxTypeLoss-1e-9 {
			lostTypes = append(lostTypes, fmt.Sprintf("%s (%d) %.3f → %.3f", t, tc.N, tc.Control, tc.Run))
		}
	}
	d.MeanControl, d.MeanRun = round(d.MeanControl), round(d.MeanRun)
	d.MinGain = math.Max(rule.MinGain, Resolution(total))
	gain := d.MeanRun - d.MeanControl
	d.Conditions = []Condition{
		{len(fell) == 0, orList("span recall@k falls on no set", "span recall@k falls on ", fell)},
		{gain >= d.MinGain-1e-9, fmt.Sprintf("its mean over %d set(s) (%d questions) gains at least %.3f: %.3f → %.3f (%+.3f)", len(sets), total, d.MinGain, d.MeanControl, d.MeanRun, gain)},
		{len(lostTypes) == 0, orList(fmt.Sprintf("no question type, pooled over the sets, loses more than %.2f", rule.MaxTypeLoss), fmt.Sprintf("types losing more than %.2f: ", rule.MaxTypeLoss), lostTypes)},
		{len(lostReach) == 0, orList("every set keeps its reachable count", "reachable count lower on ", lostReach)},
	}
	d.Accept = true
	for _, c := range d.Conditions {
		d.Accept = d.Accept && c.Held
	}
	return d, nil
}

// hits is how many of a type's questions were found within k.
func hits(m *Metrics) int { return int(math.Round(m.SpanRecallAtK * float64(m.N))) }

func orList(ok, bad string, items []string) string {
	if len(items) == 0 {
		return ok
	}
	return bad + strings.Join(items, ", ")
}

func sortedTypes[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// String is the verdict as `quire eval --decide` prints it.
func (d *Decision) String() string {
	var b strings.Builder
	verdict := "may replace"
	if !d.Accept {
		verdict = "may not replace"
	}
	fmt.Fprintf(&b, "%s %s %s on %s (README's decision rule):\n", quoteName(d.Run), verdict, quoteName(d.Control), d.Channel)
	for _, c := range d.Conditions {
		mark := "yes"
		if !c.Held {
			mark = "NO "
		}
		fmt.Fprintf(&b, "  %s  %s\n", mark, c.Text)
	}
	fmt.Fprintf(&b, "\n%-14s %5s %8s %8s %8s %10s\n", "set", "n", "control", "run", "change", "reachable")
	for _, s := range d.Sets {
		fmt.Fprintf(&b, "%-14s %5d %8.3f %8.3f %+8.3f %5d → %d\n", s.Set, s.N, s.Control, s.Run, s.Run-s.Control, s.ReachControl, s.ReachRun)
	}
	fmt.Fprintf(&b, "\n%-14s %5s %8s %8s %8s   (pooled over the sets)\n", "type", "n", "control", "run", "change")
	for _, t := range d.Types {
		fmt.Fprintf(&b, "%-14s %5d %8.3f %8.3f %+8.3f\n", t.Type, t.N, t.Control, t.Run, t.Run-t.Control)
	}
	return b.String()
}

func quoteName(n string) string {
	if n == "" {
		return "the unnamed run"
	}
	return fmt.Sprintf("%q", n)
}

// Change is one row of a run against its control: span recall@k overall,
// per type or per direction.
type Change struct {
	Name         string
	N            int
	Control, Run float64
	// Shade is "gain", "loss" or "same" (within what the set resolves).
	Shade string
}

// Compare lists span recall@k of run against control: overall, then per
// type and per direction that both have.
func Compare(run, control *Report) []Change {
	out := []Change{{Name: "all", N: run.Queries, Control: control.SpanRecallAtK, Run: run.SpanRecallAtK}}
	for _, group := range [][2]map[string]*Metrics{{run.ByType, control.ByType}, {run.ByDirection, control.ByDirection}} {
		for _, k := range sortedTypes(group[0]) {
			if c := group[1][k]; c != nil {
				out = append(out, Change{Name: k, N: group[0][k].N, Control: c.SpanRecallAtK, Run: group[0][k].SpanRecallAtK})
			}
		}
	}
	for i := range out {
		out[i].Shade = shade(out[i].Run-out[i].Control, run.Queries)
	}
	return out
}
