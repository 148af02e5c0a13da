package retrieval

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"hub/storage"
)

// Limits of a search.
const (
	// DefaultLimit and MaxLimit bound the passages one search returns.
	DefaultLimit = 5
	MaxLimit     = 10
	// maxTerms bounds the words of a query that are matched.
	maxTerms = 24
	// exactCandidates: an exact search reads this many phrase matches per
	// wanted result before checking the phrase itself.
	exactCandidates = 4
)

// Query is one search of a space.
type Query struct {
	Text string
	// Exact finds passages that contain Text as it is (a name, an id, a
	// number, a phrase); otherwise passages are ranked by how many of its
	// words they share, rare words weighing most.
	Exact bool
	Limit int
}

// Hit is one passage found, best first.
type Hit struct {
	PassageID int64
	Source    string // "file", "task" or "project"
	SourceID  string
	Title     string
	Section   string
	Body      string
	Hash      string
	Rank      int // 1 for the best
	Score     float64
}

// Result is a search's hits and what it took.
type Result struct {
	Hits  []Hit
	Terms []string // the words matched ("" for an exact search)
	Took  time.Duration
}

// Search finds the passages of spaceID that match q, for personID. The
// person's membership of the space is a condition of the query that
// ranks, so a person who cannot open the space finds nothing, the same
// second they lose it, and a result never hints at what they cannot see.
func (s *Store) Search(ctx context.Context, personID, spaceID string, q Query) (Result, error) {
	start := time.Now()
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	terms := Terms(q.Text)
	if len(terms) == 0 {
		return Result{Took: time.Since(start)}, nil
	}
	var (
		hits []Hit
		err  error
	)
	if q.Exact {
		hits, err = s.exact(ctx, personID, spaceID, q.Text, limit)
	} else {
		hits, err = s.ranked(ctx, personID, spaceID, terms, limit)
	}
	if err != nil {
		return Result{}, err
	}
	for i := range hits {
		hits[i].Rank = i + 1
	}
	if q.Exact {
		terms = nil
	}
	return Result{Hits: hits, Terms: terms, Took: time.Since(start)}, nil
}

// allowed is the condition every search query carries: live passages of
// the space, for a member of it.
const allowed = `p.live AND p.space_id = ? AND EXISTS (SELECT 1 FROM memberships m WHERE m.space_id = p.space_id AND m.person_id = ?)`

const hitColumns = `p.id AS passage_id, p.source, p.source_id, p.title, p.section, p.body, p.hash`

func (s *Store) ranked(ctx context.Context, personID, spaceID string, terms []string, limit int) ([]Hit, error) {
	var hits []Hit
	var err error
	if s.db.Dialect == storage.Postgres {
		err = s.db.Q(ctx).Raw(`SELECT `+hitColumns+`, ts_rank_cd(p.words, q, 1) AS score
FROM passages p, to_tsquery('english', ?) q
WHERE p.words @@ q AND `+allowed+`
ORDER BY score DESC, p.id LIMIT ?`, strings.Join(terms, " | "), spaceID, personID, limit).Scan(&hits).Error
	} else {
		err = s.db.Q(ctx).Raw(`SELECT `+hitColumns+`, -bm25(passage_words, 4.0, 2.0, 1.0) AS score
FROM passage_words JOIN passages p ON p.id = passage_words.rowid
WHERE passage_words MATCH ? AND `+allowed+`
ORDER BY score DESC, p.id LIMIT ?`, ftsAny(terms), spaceID, personID, limit).Scan(&hits).Error
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

// exact reads the passages that match text's words as a phrase and keeps
// those that contain text itself, ignoring case and runs of spaces.
func (s *Store) exact(ctx context.Context, personID, spaceID, text string, limit int) ([]Hit, error) {
	var hits []Hit
	var err error
	if s.db.Dialect == storage.Postgres {
		err = s.db.Q(ctx).Raw(`SELECT `+hitColumns+`, ts_rank_cd(p.words, q, 1) AS score
FROM passages p, phraseto_tsquery('english', ?) q
WHERE p.words @@ q AND `+allowed+`
ORDER BY score DESC, p.id LIMIT ?`, text, spaceID, personID, limit*exactCandidates).Scan(&hits).Error
	} else {
		err = s.db.Q(ctx).Raw(`SELECT `+hitColumns+`, -bm25(passage_words, 4.0, 2.0, 1.0) AS score
FROM passage_words JOIN passages p ON p.id = passage_words.rowid
WHERE passage_words MATCH ? AND `+allowed+`
ORDER BY score DESC, p.id LIMIT ?`, ftsPhrase(words(text)), spaceID, personID, limit*exactCandidates).Scan(&hits).Error
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	want := squash(text)
	kept := hits[:0]
	for _, h := range hits {
		if strings.Contains(squash(h.Title+"\n"+h.Section+"\n"+h.Body), want) && len(kept) < limit {
			kept = append(kept, h)
		}
	}
	return kept, nil
}

// squash lowercases s and makes every run of spaces one space.
func squash(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// ftsAny is an FTS5 query matching any of terms, each quoted.
func ftsAny(terms []string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = `"` + t + `"`
	}
	return strings.Join(q, " OR ")
}

// ftsPhrase is an FTS5 query matching terms in order, side by side.
func ftsPhrase(terms []string) string { return `"` + strings.Join(terms, " ") + `"` }

// Terms are the words of a query that a search matches: letters and
// digits, lowercased, without the common words that match nearly every
// passage, each once, at most maxTerms. A query of only common words
// keeps them.
func Terms(q string) []string {
	var out, common []string
	seen := map[string]bool{}
	for _, w := range words(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		if stopwords[w] {
			common = append(common, w)
		} else {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		out = common
	}
	return out[:min(len(out), maxTerms)]
}

// words are q's runs of letters and digits, lowercased.
func words(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// stopwords are common English words a concept query drops.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again all am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from further had has have
having he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on
once only or other our ours out over own same she should so some such than that the their theirs them then there
these they this those through to too under until up very was we were what when where which while who whom why
will with would you your yours`) {
		m[w] = true
	}
	return m
}()

// Excerpt is at most limit characters of a passage's body around where
// it matches: from the start of the paragraph of the first of terms that
// occurs (or a little before it, in a long paragraph), cut at a space;
// "…" marks what was left out.
func Excerpt(body string, terms []string, limit int) string {
	body = strings.TrimSpace(body)
	if utf8.RuneCountInString(body) <= limit {
		return body
	}
	lower := strings.ToLower(body)
	at := -1
	for _, t := range terms {
		if i := strings.Index(lower, t); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	start := 0
	if at > 0 {
		start = strings.LastIndex(body[:at], "\n\n") + 1 // 0 when the match is in the first paragraph
		if start > 0 {
			start++
		}
		if at-start > limit/2 { // a long paragraph: start a little before the match
			start = max(start, at-limit/4)
			if i := strings.IndexAny(body[start:at], " \n"); i >= 0 {
				start += i + 1
			}
			for !utf8.RuneStart(body[start]) {
				start++
			}
		}
	}
	rest := []rune(body[start:])
	prefix := ""
	if start > 0 {
		prefix, limit = "…", limit-1
	}
	if len(rest) <= limit {
		return prefix + string(rest)
	}
	cut := string(rest[:limit-1])
	if i := strings.LastIndexAny(cut, " \n"); i > len(cut)*4/5 {
		cut = cut[:i]
	}
	return prefix + strings.TrimSpace(cut) + "…"
}
