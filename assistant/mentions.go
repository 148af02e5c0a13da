package assistant

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"hub/workspace"
)

// typedMention finds a typed mention's kind ("@task:"), at the start of the
// text or after a character that is no part of a word or an address (so
// "mira@task:x" is not one). The name follows the colon.
var typedMention = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_@.])@(people|person|persons|tasks?|projects?):`)

// typedKinds maps the words a person types to record kinds.
var typedKinds = map[string]string{
	"people": workspace.KindPerson, "person": workspace.KindPerson, "persons": workspace.KindPerson,
	"task": workspace.KindTask, "tasks": workspace.KindTask,
	"project": workspace.KindProject, "projects": workspace.KindProject,
}

// NameResolver finds a record by kind and the name a text starts with
// (workspace.Service.ResolveName).
type NameResolver interface {
	ResolveName(ctx context.Context, actor workspace.Actor, spaceID, kind, text string) (workspace.Ref, error)
}

// Unresolved is a typed mention that names no single record: the text
// stays as typed, and the model is told why.
type Unresolved struct {
	Typed  string // as typed, "@task:Draft brief" (its first word when no name matched)
	Reason string
}

// TypedMentions resolves the typed mentions of a message ("@task:Draft
// brief") by exact name in the space: each one that names exactly one
// record is a ref, each other one is Unresolved. Repeats count once. Only
// a failure to read the space is an error.
func TypedMentions(ctx context.Context, r NameResolver, actor workspace.Actor, spaceID, text string) ([]workspace.Ref, []Unresolved, error) {
	var refs []workspace.Ref
	var unresolved []Unresolved
	seen := map[string]bool{}
	unresolve := func(typed, reason string) {
		if !seen[typed] {
			seen[typed] = true
			unresolved = append(unresolved, Unresolved{Typed: typed, Reason: reason})
		}
	}
	for _, m := range typedMention.FindAllStringSubmatchIndex(text, -1) {
		word, kind := text[m[2]:m[3]], typedKinds[text[m[2]:m[3]]]
		rest := text[m[1]:]
		ref, err := r.ResolveName(ctx, actor, spaceID, kind, rest)
		var nf *workspace.NotFoundError
		var amb *workspace.AmbiguousError
		switch {
		case err == nil:
			if !seen[ref.Kind+"/"+ref.ID] {
				seen[ref.Kind+"/"+ref.ID] = true
				refs = append(refs, ref)
			}
		case errors.As(err, &amb):
			unresolve("@"+word+":"+amb.Name, fmt.Sprintf("%d %ss have this name; ask which one is meant, or look them up", amb.Count, kind))
		case errors.As(err, &nf):
			// Where a name that matched nothing ends is unknown: quote what
			// surely is the mention, never the text after it.
			unresolve("@"+word+":"+mentionName(rest),
				fmt.Sprintf("no %s of this space has this name, alone or with the words after it; look it up by other words if needed", kind))
		default:
			return nil, nil, err
		}
	}
	return refs, unresolved, nil
}

// mentionName is the part of a text after a typed mention that no name
// matched and that surely is the mention: its first word and the
// capitalized words right after it ("Mira Chan about Friday" is "Mira
// Chan"), ending at punctuation, at most four words.
func mentionName(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	isPunct := func(r rune) bool { return unicode.IsPunct(r) && r != '_' && r != '-' && r != '\'' }
	var words []string
	for i, w := range strings.Fields(line) {
		trimmed := strings.TrimRightFunc(w, isPunct)
		if i > 0 {
			r, _ := utf8.DecodeRuneInString(trimmed)
			if trimmed == "" || !(unicode.IsUpper(r) || unicode.IsDigit(r)) {
				break
			}
		}
		if trimmed != "" {
			words = append(words, trimmed)
		}
		if trimmed != w || len(words) == 4 {
			break // punctuation ends the name
		}
	}
	return strings.Join(words, " ")
}

// HasTypedMention tells whether a text may hold a typed mention, so a
// message without one costs no lookup.
func HasTypedMention(text string) bool { return typedMention.MatchString(text) }
