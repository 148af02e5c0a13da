package workspace

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AmbiguousError says a name typed after a mention names more than one
// record of its kind in the space.
type AmbiguousError struct {
	Kind, Name string
	Count      int
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d %ss are named %q", e.Count, e.Kind, e.Name)
}

// maxTypedName bounds the text a typed mention's name is looked for in.
const maxTypedName = MaxTitleLength

// ResolveName finds the record of kind whose name the text starts with,
// ignoring case, for a typed mention ("@task:Draft brief is late" is the
// task "Draft brief"): the name must end where a word ends, and the longest
// wins. Two records with that name are an *AmbiguousError; none a
// *NotFoundError.
func (s *Service) ResolveName(ctx context.Context, actor Actor, spaceID, kind, text string) (Ref, error) {
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return Ref{}, err
	}
	if r := []rune(text); len(r) > maxTypedName {
		text = string(r[:maxTypedName])
	}
	if strings.TrimSpace(text) == "" || BadText(text) {
		return Ref{}, &NotFoundError{Kind: kind}
	}
	src, ok := refSources[kind]
	if !ok {
		return Ref{}, invalid("/kind", "kind must be task, project or person, not %q", kind)
	}
	// The names the text starts with; the database compares (lowering both
	// sides, as for title search) and Go checks the word boundary.
	var rows []refRow
	err := s.q(ctx).Raw("SELECT * FROM ("+src+") r WHERE label <> '' "+
		"AND LOWER(SUBSTR(CAST(? AS TEXT), 1, LENGTH(label))) = LOWER(label) LIMIT 50", spaceID, text).Scan(&rows).Error
	if err != nil {
		return Ref{}, fmt.Errorf("find %s by name: %w", kind, err)
	}
	cands := mapRows(rows, refRow.ref)
	var best []Ref
	bestLen := 0
	for _, c := range cands {
		n := len(c.Label)
		if n > len(text) || !strings.EqualFold(text[:n], c.Label) || !wordEnds(text, n) {
			continue
		}
		switch {
		case n > bestLen:
			best, bestLen = []Ref{c}, n
		case n == bestLen:
			best = append(best, c)
		}
	}
	switch len(best) {
	case 0:
		return Ref{}, &NotFoundError{Kind: kind}
	case 1:
		return best[0], nil
	}
	return Ref{}, &AmbiguousError{Kind: kind, Name: best[0].Label, Count: len(best)}
}

// wordEnds tells whether a name of n bytes at the start of text ends a word
// there: at the end, or before a character that is no letter or digit.
func wordEnds(text string, n int) bool {
	if n == len(text) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(text[n:])
	last, _ := utf8.DecodeLastRuneInString(text[:n])
	if !unicode.IsLetter(last) && !unicode.IsDigit(last) {
		return true // a name ending in punctuation ends where it ends
	}
	return !unicode.IsLetter(next) && !unicode.IsDigit(next)
}

// FindRefs looks ids a client's page context carries up in the space,
// whatever their kind: an id of another space, or of nothing, is absent
// from the answer.
func (s *Service) FindRefs(ctx context.Context, actor Actor, spaceID string, ids []string) (map[string]Ref, error) {
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return nil, err
	}
	clean := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" && !BadText(id) {
			clean = append(clean, id)
		}
	}
	out := map[string]Ref{}
	if len(clean) == 0 {
		return out, nil
	}
	// One round trip for all three kinds (a page may carry 200 ids).
	var rows []refRow
	err := s.q(ctx).Raw("SELECT * FROM ("+refSources[KindTask]+") r WHERE id IN ?"+
		" UNION ALL SELECT * FROM ("+refSources[KindProject]+") r WHERE id IN ?"+
		" UNION ALL SELECT * FROM ("+refSources[KindPerson]+") r WHERE id IN ?",
		spaceID, clean, spaceID, clean, spaceID, clean).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("find records: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r.ref()
	}
	return out, nil
}

// refSources read, per kind, the records of a space as refRows.
var refSources = map[string]string{
	KindTask:    "SELECT 'task' AS kind, id, title AS label, status, due_date, '' AS role FROM tasks WHERE space_id = ?",
	KindProject: "SELECT 'project' AS kind, id, name AS label, status, NULL AS due_date, '' AS role FROM projects WHERE space_id = ?",
	KindPerson: "SELECT 'person' AS kind, people.id, people.name AS label, '' AS status, NULL AS due_date, memberships.role " +
		"FROM people JOIN memberships ON memberships.person_id = people.id WHERE memberships.space_id = ?",
}

// refRow is a record as refSources read it.
type refRow struct {
	Kind, ID, Label, Status, Role string
	DueDate                       *string
}

func (r refRow) ref() Ref {
	switch r.Kind {
	case KindTask:
		return TaskRef(Task{ID: r.ID, Title: r.Label, Status: r.Status, DueDate: deref(r.DueDate)})
	case KindProject:
		return Ref{Kind: KindProject, ID: r.ID, Label: r.Label, Detail: r.Status}
	}
	return Ref{Kind: KindPerson, ID: r.ID, Label: r.Label, Detail: r.Role}
}
