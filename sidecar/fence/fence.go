// Package fence makes untrusted text (a note's passage, a fetched page, a
// user's question) inert inside a model prompt, where it sits between the
// prompt's own tags as data.
//
// The markers that could pass for structure are: the prompt's own tags
// (and neighbours a model may take for them), chat-template special tokens
// (ChatML <|im_start|>, Llama 3 <|eot_id|>, DeepSeek's full-width <｜…｜>,
// Gemma <start_of_turn>, Llama 2 <<SYS>> and <s>, Mistral [INST] and
// [TOOL_CALLS]), and role labels at the start of a line (Human:,
// Assistant:, ### Instruction:). Each gets its angle bracket, square
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
	// emphasis: "- System:", "1. user:", "**System:**", "_Assistant_:".
	roleRe = regexp.MustCompile(`(?im)^([ \t>]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?(?:#+[ \t]*)?[*_]{0,3}[ \t]*)(human|assistant|system|user|ai|model|instruction|response|input|output)([*_]{0,3}[ \t]*):`)

	angleQuotes = strings.NewReplacer("<", "‹", ">", "›")
)

// Fence fences text for one prompt's tags.
type Fence struct {
	tagRe *regexp.Regexp
}

// New returns the fence for a prompt whose own tags are named by tags,
// each a regexp alternative such as "passages?" or "question".
func New(tags ...string) *Fence {
	names := strings.Join(append(tags, commonTags), "|")
	return &Fence{tagRe: regexp.MustCompile(`(?i)<(\s*/?\s*(?:` + names + `)\b)`)}
}

// Text returns text made inert. It is idempotent.
func (f *Fence) Text(text string) string {
	text = normalise(text)
	// Each pattern needs its bracket or colon: skip the regexp (slow on a
	// long passage) when the text has none.
	if strings.IndexByte(text, '<') >= 0 || strings.Contains(text, "｜") {
		text = specialRe.ReplaceAllStringFunc(text, angleQuotes.Replace)
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

// normalise folds look-alikes before the patterns look: NFKC (full-width
// ＜ and ：, a no-break space), format characters such as zero-width
// spaces and bidi controls dropped, and control characters other than
// newline and tab made spaces (a vertical tab is not \s to regexp), so
// that "<\u200b/passages>" or "＜/passages＞" cannot pass for plain text.
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
	text = norm.NFKC.String(text)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case unicode.Is(unicode.Cf, r):
			return -1
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, text)
}
