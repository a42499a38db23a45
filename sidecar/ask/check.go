package ask

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// reply is the model's JSON answer. Citations and quote ids are taken as
// numbers or strings ("3", "[3]"), since small models mix them up.
type reply struct {
	Answer    string            `json:"answer"`
	Citations []json.RawMessage `json:"citations"`
	Quotes    []struct {
		ID   json.RawMessage `json:"id"`
		Text string          `json:"text"`
	} `json:"quotes"`
	NotFound bool `json:"notFound"`
}

func parseReply(text string) (reply, error) {
	var r reply
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return reply{}, fmt.Errorf("model reply: %w", err)
	}
	return r, nil
}

// idOf reads a cited id: 3, "3", "[3]", "passage 3".
func idOf(raw json.RawMessage) (int, bool) {
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return n, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	if m := digitsRe.FindString(s); m != "" {
		n, err := strconv.Atoi(m)
		return n, err == nil
	}
	return 0, false
}

var digitsRe = regexp.MustCompile(`\d+`)

// markerRe finds citation markers: [3], [3, 4], [3; 4]. Up to three digits,
// so that a bracketed year is not taken for a citation.
var markerRe = regexp.MustCompile(`\s?\[\s*\d{1,3}(?:\s*[,;]\s*\d{1,3})*\s*\]`)

// check turns the model's reply into ans's text, citations and quotes:
// citations of passages not given are removed from the text and counted,
// an answer without a valid citation (or one the model says is not found)
// becomes a refusal, and quotations are looked up in the cited passages.
func check(ans *Answer, r reply) {
	byN := map[int]Passage{}
	for _, p := range ans.Passages {
		byN[p.N] = p
	}
	invented := map[int]bool{}
	var kept []int
	keep := func(n int) {
		for _, k := range kept {
			if k == n {
				return
			}
		}
		kept = append(kept, n)
	}

	text := rewriteMarkers(r.Answer, func(n int) bool {
		if _, ok := byN[n]; ok {
			keep(n)
			return true
		}
		invented[n] = true
		return false
	})
	for _, raw := range r.Citations {
		n, ok := idOf(raw)
		if !ok {
			continue
		}
		if _, given := byN[n]; given {
			keep(n)
		} else {
			invented[n] = true
		}
	}
	ans.Dropped = len(invented)

	text = strings.TrimSpace(text)
	if r.NotFound || len(kept) == 0 || text == "" {
		ans.Text = refusal(ans.Lang)
		ans.Refused, ans.Grounded = true, false
		ans.Citations, ans.Quotes = nil, nil
		return
	}
	text, links := keepLinks(text, func(addr string) bool {
		for _, n := range kept {
			if strings.Contains(byN[n].Text, addr) {
				return true
			}
		}
		return false
	})
	if links > 0 {
		ans.Warnings = append(ans.Warnings, fmt.Sprintf("%d link(s) or image(s) the cited passages do not hold were removed from the answer", links))
	}
	ans.Text = text
	ans.Grounded = true
	for _, n := range kept {
		p := byN[n]
		ans.Citations = append(ans.Citations, Citation{N: n, Passage: p.Passage, Hash: hashText(p.Text)})
	}
	ans.Quotes = checkQuotes(r, text, kept, byN)
}

// rewriteMarkers keeps, in each citation marker, the numbers valid
// accepts, and removes a marker left empty (with the space before it).
func rewriteMarkers(text string, valid func(int) bool) string {
	return markerRe.ReplaceAllStringFunc(text, func(m string) string {
		lead := ""
		if m[0] != '[' {
			lead = m[:1]
		}
		var ok []string
		for _, d := range digitsRe.FindAllString(m, -1) {
			n, _ := strconv.Atoi(d)
			if valid(n) {
				ok = append(ok, strconv.Itoa(n))
			}
		}
		if len(ok) == 0 {
			return ""
		}
		return lead + "[" + strings.Join(ok, ", ") + "]"
	})
}

// inlineQuoteRe finds quotations in the answer's text: "…", “…”, «…», „…“.
var inlineQuoteRe = regexp.MustCompile(`"([^"\n]+)"|“([^”\n]+)”|«\s*([^»\n]+?)\s*»|„([^“”\n]+)[“”]`)

// minQuoteWords: shorter quoted bits ("blue", "so-called") are names and
// scare quotes, not quotations of a passage.
const minQuoteWords = 4

// checkQuotes verifies the quotes the model listed and the quotations in
// its text against the cited passages. A quote attributed to the wrong
// cited passage but found in another is verified and re-attributed.
func checkQuotes(r reply, text string, kept []int, byN map[int]Passage) []Quote {
	var out []Quote
	seen := map[string]bool{}
	find := func(n int, q string) (int, bool) {
		nq := normalize(q)
		if nq == "" {
			return n, false
		}
		if p, ok := byN[n]; ok && contains(kept, n) && inPassage(p, nq) {
			return n, true
		}
		for _, k := range kept {
			if inPassage(byN[k], nq) {
				return k, true
			}
		}
		return n, false
	}
	for _, q := range r.Quotes {
		n, _ := idOf(q.ID)
		t := strings.TrimSpace(q.Text)
		if t == "" || seen[normalize(t)] {
			continue
		}
		seen[normalize(t)] = true
		n, ok := find(n, t)
		out = append(out, Quote{N: n, Text: t, Verified: ok})
	}
	for _, m := range inlineQuoteRe.FindAllStringSubmatchIndex(text, -1) {
		var t string
		for g := 1; g < len(m)/2; g++ {
			if m[2*g] >= 0 {
				t = text[m[2*g]:m[2*g+1]]
			}
		}
		t = strings.Trim(strings.TrimSpace(t), ".,;:")
		if len(strings.Fields(t)) < minQuoteWords || seen[normalize(t)] {
			continue
		}
		seen[normalize(t)] = true
		// Attribute it to the citation right after it, if any.
		n := 0
		rest := text[m[1]:]
		if loc := markerRe.FindStringIndex(rest); loc != nil && len(strings.TrimSpace(rest[:loc[0]])) <= 1 {
			n, _ = strconv.Atoi(digitsRe.FindString(rest[loc[0]:loc[1]]))
		}
		n, ok := find(n, t)
		out = append(out, Quote{N: n, Text: t, Verified: ok})
	}
	return out
}

// inPassage reports whether the normalised quote nq is in p, as written or
// as the model saw it after fencing.
func inPassage(p Passage, nq string) bool {
	return strings.Contains(normalize(p.Text), nq) || strings.Contains(normalize(Fence(p.Text)), nq)
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
