package ask

import (
	"regexp"
	"strings"

	"github.com/quire-app/quire/sidecar/lang"
)

// Turn is an earlier question of a conversation and the answer it got,
// given with a follow-up so the model knows what "it" or "the other ones"
// refer to. Earlier answers are context, never sources: only the passages
// retrieved for the follow-up can be cited.
type Turn struct {
	Question string
	Answer   string
	// Passages are the ids of the passages Answer was built from; see
	// Asker.publicTurns.
	Passages []string
}

// Conversation limits. A follow-up needs the last few turns, not the whole
// chat; and the passages, not the chat, are what the answer is built from,
// so the turns get at most a quarter of the room left for passages.
const (
	maxTurns        = 8
	historyShareDiv = 4
	// minTurnTokens is the least worth sending of a cut answer.
	minTurnTokens = 24
)

// citeMarkRe matches an earlier answer's citation markers, which numbered
// that turn's passages; left in, the model would take them for this turn's.
var citeMarkRe = regexp.MustCompile(`\s?\[\d{1,3}\]`)

// cleanTurns drops empty turns and citation markers and keeps the last
// maxTurns, oldest first.
func cleanTurns(ts []Turn) []Turn {
	var out []Turn
	for _, t := range ts {
		q := strings.TrimSpace(t.Question)
		a := strings.TrimSpace(citeMarkRe.ReplaceAllString(t.Answer, ""))
		if q == "" {
			continue
		}
		out = append(out, Turn{Question: q, Answer: a, Passages: t.Passages})
	}
	if len(out) > maxTurns {
		out = out[len(out)-maxTurns:]
	}
	return out
}

// fitTurns keeps the latest turns whose blocks fit budget tokens, oldest
// first, and returns what they cost. The newest turn is cut (its answer
// shortened at a word) rather than dropped when it alone is too long, so a
// follow-up never loses the turn it follows.
func fitTurns(ts []Turn, budget int, count func(string) int) ([]Turn, int) {
	var kept []Turn
	used := 0
	for i := len(ts) - 1; i >= 0; i-- {
		t := ts[i]
		cost := count(turnBlock(t))
		if used+cost > budget {
			if len(kept) > 0 {
				break
			}
			t, cost = cutTurn(t, budget, count)
			if cost > budget {
				break
			}
		}
		used += cost
		kept = append(kept, t)
	}
	// kept is newest first.
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	return kept, used
}

// cutTurn shortens t's answer, then its question, until its block fits.
func cutTurn(t Turn, budget int, count func(string) int) (Turn, int) {
	cost := count(turnBlock(t))
	for cost > budget {
		field := &t.Answer
		if len(strings.Fields(t.Answer)) <= 1 {
			t.Answer = ""
			field = &t.Question
		}
		words := strings.Fields(*field)
		if len(words) <= 1 || budget < minTurnTokens {
			return t, count(turnBlock(t))
		}
		// Scale down by what is over, and by at least a word.
		keep := len(words) * budget / (cost + 1)
		keep = min(keep, len(words)-1)
		*field = strings.Join(words[:max(keep, 1)], " ") + " ..."
		cost = count(turnBlock(t))
	}
	return t, cost
}

// turnBlock renders one earlier turn for the prompt, fenced like every
// other piece of data in it.
func turnBlock(t Turn) string {
	return "<asked>\n" + Fence(t.Question) + "\n</asked>\n<answered>\n" + Fence(t.Answer) + "\n</answered>\n"
}

// searchText is what a question is searched for: a follow-up alone often
// lacks its subject ("and how often should I feed it?"), so the previous
// question is searched with it.
func searchText(question string, history []Turn) string {
	if len(history) == 0 {
		return question
	}
	return history[len(history)-1].Question + "\n" + question
}

// conversationLang is the language to answer a follow-up in: the
// question's own, or, when it is too short to tell ("and why?"), that of
// the earlier questions.
func conversationLang(question string, history []Turn) lang.Lang {
	if l := lang.Detect(question); l != lang.Unknown {
		return l
	}
	var b strings.Builder
	for _, t := range history {
		b.WriteString(t.Question)
		b.WriteString("\n")
	}
	b.WriteString(question)
	return questionLang(b.String())
}
