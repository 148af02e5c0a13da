package retrieval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
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
	// Tool and CallID name the tool call that searched, for the record.
	Tool, CallID string
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
// A search a tool made (q.Tool) is recorded for the run inspector.
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
	var df []float64
	every := false // all terms are common: a passage must have each
	if !q.Exact {
		var err error
		if terms, df, every, err = s.uncommon(ctx, spaceID, terms); err != nil {
			return Result{}, err
		}
	}
	m := s.match(q.Exact, every, q.Text, terms)
	if s.db.Dialect == storage.Postgres && !q.Exact {
		m.score, m.scoreArgs = rarityScore(terms, df)
	}
	read := limit
	if q.Exact {
		read = limit * exactCandidates
	} else if s.Embedder != nil {
		read = limit * fusedDepth
	}
	from, where, args := m.from, m.where, []any{m.arg}
	if every && (s.db.Dialect != storage.Postgres || together(df) > 4*maxRanked) {
		from, where, args = s.newest(m, spaceID)
	}
	var hits []Hit
	err := s.db.Q(ctx).Raw(`SELECT `+hitColumns+`, `+m.score+` AS score FROM `+from+`
WHERE `+where+` AND `+allowed+` ORDER BY score DESC, p.id LIMIT ?`,
		slices.Concat(m.scoreArgs, args, []any{spaceID, personID, read})...).Scan(&hits).Error
	if err != nil {
		return Result{}, fmt.Errorf("search: %w", err)
	}
	if !q.Exact {
		if hits, err = s.fused(ctx, personID, spaceID, q.Text, hits, limit); err != nil {
			return Result{}, err
		}
	} else {
		terms = nil
		want := squash(q.Text)
		hits = slices.DeleteFunc(hits, func(h Hit) bool { return !strings.Contains(squash(h.Title+"\n"+h.Section+"\n"+h.Body), want) })
		hits = hits[:min(len(hits), limit)]
	}
	for i := range hits {
		hits[i].Rank = i + 1
	}
	res := Result{Hits: hits, Terms: terms, Took: time.Since(start)}
	if q.Tool != "" {
		if err := s.record(ctx, personID, spaceID, q, m, res); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// match is how one engine matches a query: the tables, the condition, its
// argument and the score that ranks.
type match struct {
	from, where, score string
	arg                string
	scoreArgs          []any // the score's arguments, before arg
}

// match is a query's match on this engine: any of the terms, ranked by
// rarity and density (bm25; on Postgres Search scores with rarityScore),
// or the words of text as a phrase.
func (s *Store) match(exact, every bool, text string, terms []string) match {
	if s.db.Dialect == storage.Postgres {
		m := match{from: `passages p, to_tsquery('english', ?) q`, where: `p.words @@ q`, score: `ts_rank_cd(p.words, q, 1)`,
			arg: strings.Join(terms, " | ")}
		if every {
			m.arg = strings.Join(terms, " & ")
		}
		if exact {
			m.from, m.arg = `passages p, phraseto_tsquery('english', ?) q`, text
		}
		return m
	}
	m := match{from: `passage_words CROSS JOIN passages p ON p.id = passage_words.rowid`, where: `passage_words MATCH ?`,
		score: `-bm25(passage_words, 4.0, 2.0, 1.0)`, arg: ftsAny(terms)}
	if every {
		m.arg = strings.ReplaceAll(m.arg, " OR ", " AND ")
	}
	if exact {
		m.arg = ftsPhrase(words(text))
	}
	return m
}

// newest is a match of only common words bounded to the space's newest
// maxRanked passages that have them all, and its arguments. On Postgres
// the bound is a subquery in id order that matches with ts_match_vq (@@
// as a function, which the word index cannot serve): the plan is made for
// any words, and walking the word index for common ones cost more than
// ranking them did.
func (s *Store) newest(m match, spaceID string) (from, where string, args []any) {
	if s.db.Dialect == storage.Postgres {
		return `(SELECT * FROM passages p WHERE ts_match_vq(p.words, to_tsquery('english', ?)) AND p.live AND p.space_id = ?
ORDER BY p.id DESC LIMIT ` + strconv.Itoa(maxRanked) + `) p, to_tsquery('english', ?) q`, m.where, []any{m.arg, spaceID, m.arg}
	}
	return m.from, m.where + ` AND passage_words.rowid >= coalesce((SELECT passage_words.rowid FROM passage_words
CROSS JOIN passages b ON b.id = passage_words.rowid WHERE passage_words MATCH ? AND b.live AND b.space_id = ?
ORDER BY passage_words.rowid DESC LIMIT 1 OFFSET ` + strconv.Itoa(maxRanked-1) + `), 0)`, []any{m.arg, m.arg, spaceID}
}

// together estimates how many passages have every term, as if words
// occurred apart from each other (df as uncommon returns it). On Postgres
// a search of common words that few passages have together is faster
// through the word index than through newest: its walk in id order would
// pass most of the space before it found maxRanked.
func together(df []float64) float64 {
	n := max(df[0], 1)
	est := n
	for _, d := range df[1:] {
		est *= d / n
	}
	return est
}

// commonPassages: a word in at least this many passages of the space is
// common there. A topic search leaves common words out of its match when
// it has others: ranking every passage that has one is what made a search
// of 50,000 passages slow (docs/benchmarks.md, "Search"), and they add
// little to the rank.
const commonPassages = 2000

// maxRanked bounds the passages a search of only common words ranks: the
// space's newest that have them all. Such a query (every word in 2,000
// passages or more) names no topic a rank could find among tens of
// thousands; it is bounded as the semantic index is (maxSemanticCandidates).
const maxRanked = 1000

// uncommon returns terms without those common in the space and the
// document frequencies rarityScore weighs them by: first the space's
// passages, then each kept term's. When every term is common it keeps
// them all, with every set: a passage must then have each.
//
// Postgres reads the counts passage_terms keeps (migration 00037), exact
// and per space. SQLite counts in FTS5's index, which answers a word's
// passages in every space quickly, up to commonPassages (and the space's
// passages up to maxCounted).
func (s *Store) uncommon(ctx context.Context, spaceID string, terms []string) (kept []string, df []float64, every bool, err error) {
	counts := make([]string, len(terms)+1)
	var args []any
	if s.db.Dialect == storage.Postgres {
		const count = `coalesce((SELECT t.passages FROM passage_terms t WHERE t.space_id = ? AND t.term = %s), 0)`
		counts[0], args = fmt.Sprintf(count, `''`), []any{spaceID}
		for i, t := range terms {
			counts[i+1] = fmt.Sprintf(count, `(SELECT w.lexeme FROM unnest(to_tsvector('english', ?)) w LIMIT 1)`)
			args = append(args, spaceID, t)
		}
	} else {
		counts[0], args = `(SELECT count(*) FROM (SELECT 1 FROM passages WHERE space_id = ? LIMIT ?) n)`, []any{spaceID, maxCounted}
		for i, t := range terms {
			counts[i+1] = `(SELECT count(*) FROM (SELECT 1 FROM passage_words WHERE passage_words MATCH ? LIMIT ?) c)`
			args = append(args, ftsAny([]string{t}), commonPassages)
		}
	}
	df = make([]float64, len(counts))
	dest := make([]any, len(df))
	for i := range df {
		dest[i] = &df[i]
	}
	if err = s.db.Q(ctx).Raw(`SELECT `+strings.Join(counts, ", "), args...).Row().Scan(dest...); err != nil {
		return nil, nil, false, fmt.Errorf("count term frequencies: %w", err)
	}
	keptDF := []float64{df[0]}
	for i, t := range terms {
		if df[i+1] < commonPassages {
			kept, keptDF = append(kept, t), append(keptDF, df[i+1])
		}
	}
	if len(kept) == 0 {
		return terms, df, true, nil
	}
	return kept, keptDF, false, nil
}

// maxCounted bounds SQLite's count of the space's passages.
const maxCounted = 10 * commonPassages

// rarityScore is Postgres's score of a topic search: each term's ts_rank
// (title and section weighted a little over the body) times its BM25
// inverse document frequency in the space (df: the space's passages, then
// each term's, from uncommon), so a rare word outweighs a common one.
func rarityScore(terms []string, df []float64) (string, []any) {
	n := df[0]
	parts := make([]string, len(terms))
	scoreArgs := make([]any, 0, 2*len(terms))
	for i, t := range terms {
		parts[i] = `? * ts_rank('{0.5, 0.5, 0.75, 1.0}', p.words, to_tsquery('english', ?), 1)`
		scoreArgs = append(scoreArgs, math.Log(1+(n-df[i+1]+0.5)/(df[i+1]+0.5)), t)
	}
	return "(" + strings.Join(parts, " + ") + ")", scoreArgs
}

// allowed is the condition every search query carries: live passages of
// the space, for a member of it.
const allowed = `p.live AND p.space_id = ? AND EXISTS (SELECT 1 FROM memberships m WHERE m.space_id = p.space_id AND m.person_id = ?)`

const hitColumns = `p.id AS passage_id, p.source, p.source_id, p.title, p.section, p.body, p.hash`

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
