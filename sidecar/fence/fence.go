// Package fence makes untrusted text (a note's passage, a fetched page, a
// user's question) inert inside a model prompt, where it sits between the
// prompt's own tags as data.
//
// The markers that could pass for structure are: the prompt's own tags
// (and neighbours a model may take for them), chat-template special tokens
// (ChatML <|im_start|>, Llama 3 <|eot_id|>, DeepSeek's full-width <｜…｜>,
// Gemma <start_of_turn>, Llama 2 <<SYS>> and <s>, Mistral [INST] and
// [TOOL_CALLS]), and role labels at the start of a line or table cell
// (Human:, Assistant:, ### Instruction:), names spelt with look-alike
// letters too. Each gets its angle bracket, square
// bracket or colon swapped for a look-alike that no tokenizer or template
// reads as structure. The words stay readable, so a passage about chat
// templates can still be quoted and a page on prompt injection summarised.
package fence

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// commonTags are tag names every prompt fences, whatever its own tags:
// role and template names, and the generic data tags a model may take for
// the prompt's.
const commonTags = `system|user|assistant|human|s|start_of_turn|end_of_turn|think|instructions?|context|documents?|data|tool_call|tool_response|sys`

var (
	// special covers <|…|> and <｜…｜> however spaced, and the <<SYS>> pair.
	specialRe = regexp.MustCompile(`<\s*([|｜])|([|｜])\s*>|<<\s*/?\s*SYS\s*>>`)
	instRe    = regexp.MustCompile(`(?i)\[\s*(/?\s*(?:INST|SYS|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS)\s*)\]`)
	// roleRe takes a role label through list marks, heading marks and
	// emphasis: "- System:", "1. user:", "**System:**", "_Assistant_:",
	// at the start of a line or of a table cell ("| System: |"), and
	// spelt with look-alike letters ("Ѕystem:" with a Cyrillic Ѕ).
	roleRe = regexp.MustCompile(`(?im)((?:^|\|)[ \t>]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?(?:#+[ \t]*)?[*_]{0,3}[ \t]*)(` +
		lookAlike(`human|assistant|system|user|ai|model|instruction|response|input|output`) + `)([*_]{0,3}[ \t]*):`)

	angleQuotes = strings.NewReplacer("<", "‹", ">", "›")
)

// Fence fences text for one prompt's tags.
type Fence struct {
	tagRe *regexp.Regexp
}

// New returns the fence for a prompt whose own tags are named by tags,
// each a regexp alternative such as "passages?" or "question".
func New(tags ...string) *Fence {
	names := lookAlike(strings.Join(append(tags, commonTags), "|"))
	// Not \b, which is an ASCII boundary and fails after a look-alike
	// last letter ("<systeм>"): the name ends at anything but a letter,
	// digit or "_", which the match takes with it.
	return &Fence{tagRe: regexp.MustCompile(`(?i)<(\s*/?\s*(?:` + names + `)(?:[^\pL\pN_]|$))`)}
}

// Text returns text made inert. It is idempotent.
func (f *Fence) Text(text string) string {
	text = normalise(text)
	// Each pattern needs its bracket or colon: skip the regexp (slow on a
	// long passage) when the text has none.
	if strings.IndexByte(text, '<') >= 0 || strings.Contains(text, "｜") {
		text = specialRe.ReplaceAllStringFunc(text, angleQuotes.Replace)
		// Twice: a match takes the character after the name, which may be
		// the "<" of the next tag ("<s<s>").
		text = f.tagRe.ReplaceAllString(text, "‹$1")
		text = f.tagRe.ReplaceAllString(text, "‹$1")
	}
	if strings.IndexByte(text, '[') >= 0 {
		text = instRe.ReplaceAllString(text, "⟦$1⟧")
	}
	if strings.IndexByte(text, ':') >= 0 {
		text = roleRe.ReplaceAllString(text, "$1$2$3∶")
	}
	return text
}

// confusables are the Cyrillic, Greek and Armenian letters that look like
// a Latin one, for the letters of the tag and role names: "Ѕystem:" must
// not pass where "System:" is fenced. Case folding covers the other case.
var confusables = map[rune]string{
	'a': "аα", 'c': "сϲ", 'd': "ԁ", 'e': "еε", 'h': "һη", 'i': "іι",
	'j': "ј", 'l': "ӏ", 'm': "м", 'n': "ո", 'o': "оοօ", 'p': "рρ",
	'q': "ԛ", 'r': "г", 's': "ѕ", 't': "τ", 'u': "υս", 'x': "хχ", 'y': "уγ",
	'k': "κ", 'b': "Ь", 'g': "ɡ",
}

// lookAlike turns the ASCII letters of a regexp of plain names (letters,
// "_", "|", "?") into classes that also match their confusables.
func lookAlike(names string) string {
	var b strings.Builder
	for _, r := range names {
		if alt, ok := confusables[r]; ok {
			b.WriteString("[" + string(r) + alt + "]")
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// normalise folds look-alikes before the patterns look: NFKC (full-width
// ＜ and ：, a no-break space), format characters such as zero-width
// spaces and bidi controls dropped, combining marks that sit on no letter
// or digit dropped (on "<" they make no other letter, and "<\u0338" would
// compose to "≮"), and control characters other than newline and tab made
// spaces (a vertical tab is not \s to regexp), so that "<\u200b/passages>",
// "<\u0301/passages>" or "＜/passages＞" cannot pass for plain text.
func normalise(text string) string {
	ascii := true
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= utf8.RuneSelf || c < ' ' && c != '\n' && c != '\t' || c == 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		return text
	}
	// Marks are dropped before NFKC composes them with a bracket and
	// again after it, which makes some (´ is a space and U+0301).
	return clean(norm.NFKC.String(clean(text)))
}

// clean drops format characters and combining marks on no letter or
// digit, and makes control characters other than newline and tab spaces.
func clean(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	onLetter := false
	for _, r := range text {
		switch {
		case r == '\n' || r == '\t':
		case unicode.Is(unicode.Cf, r):
			continue
		case unicode.IsControl(r):
			r = ' '
		case unicode.In(r, unicode.Mn, unicode.Me):
			// Variation selectors and the grapheme joiner are Mn too.
			if !onLetter {
				continue
			}
			b.WriteRune(r)
			continue
		}
		onLetter = unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mc, r)
		b.WriteRune(r)
	}
	return b.String()
}
