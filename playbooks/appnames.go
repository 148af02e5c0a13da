package playbooks

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// everydayWords are app names that are also ordinary English words: they
// name the app only capitalised inside a sentence ("post it in Slack", not
// "cut me some slack" or "Close the task").
var everydayWords = map[string]bool{
	"base": true, "basecamp": true, "bear": true, "box": true, "buffer": true, "calendar": true,
	"channel": true, "chat": true, "close": true, "coda": true, "copper": true, "craft": true,
	"discord": true, "docs": true, "drive": true, "excel": true, "float": true, "forecast": true,
	"forms": true, "front": true, "gather": true, "harvest": true, "height": true, "help": true,
	"hub": true, "keep": true, "linear": true, "loom": true, "mail": true, "meet": true,
	"monday": true, "notes": true, "notion": true, "office": true, "outlook": true, "pilot": true,
	"pitch": true, "ring": true, "sheets": true, "shift": true, "slack": true, "spark": true,
	"square": true, "streak": true, "stripe": true, "teams": true, "things": true, "webhook": true,
	"word": true, "zoom": true,
}

// namesApp tells whether a message names one of the connected apps, whole
// or by a part (nameParts), as whole words in any case, except that an
// everyday word counts only capitalised and not as a sentence's first word.
func namesApp(message string, appNames []string) bool {
	words := splitWords(message)
	for _, name := range appNames {
		for _, part := range nameParts(name) {
			if hasName(words, part) {
				return true
			}
		}
	}
	return false
}

// word is one word of a message, with whether it begins a sentence.
type word struct {
	sentenceStart bool
	startsUpper   bool
	lower         string
}

// splitWords cuts a message into words (runs of letters and digits).
func splitWords(s string) []word {
	var out []word
	start, rest := true, s // the message's first word begins a sentence
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !IsWordRune(r) }) {
		i := strings.Index(rest, w) // what comes before it holds no word rune
		start = start || strings.ContainsAny(rest[:i], ".!?:\n")
		r, _ := utf8.DecodeRuneInString(w)
		out = append(out, word{sentenceStart: start, startsUpper: unicode.IsUpper(r), lower: strings.ToLower(w)})
		start, rest = false, rest[i+len(w):]
	}
	return out
}

// IsWordRune tells whether r is part of a word: a letter or a digit.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// nameParts is a connection name and its parts split at &, +, /, ",", "|"
// and " and ", each as lower-case words; parts shorter than two letters
// are left out.
func nameParts(name string) [][]string {
	var out [][]string
	add := func(s string) {
		var ws []string
		for _, w := range splitWords(s) {
			ws = append(ws, w.lower)
		}
		if len(ws) == 0 || (len(ws) == 1 && utf8.RuneCountInString(ws[0]) < 2) {
			return
		}
		out = append(out, ws)
	}
	add(name)
	parts := strings.FieldsFunc(strings.ReplaceAll(strings.ToLower(name), " and ", "&"), func(r rune) bool {
		return strings.ContainsRune("&+/,|", r)
	})
	if len(parts) > 1 {
		for _, p := range parts {
			add(p)
		}
	}
	return out
}

// hasName finds a name's words in a row among the message's words.
func hasName(words []word, name []string) bool {
	everyday := len(name) == 1 && everydayWords[name[0]]
	for i := 0; i+len(name) <= len(words); i++ {
		match := slices.EqualFunc(words[i:i+len(name)], name, func(w word, n string) bool { return w.lower == n })
		if match && (!everyday || words[i].startsUpper && !words[i].sentenceStart) {
			return true
		}
	}
	return false
}
