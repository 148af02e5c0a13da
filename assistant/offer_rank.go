package assistant

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"hub/tools"
)

// Ranker orders tools by relevance to a person's words: the names of the
// candidates relevant at all, best first. It may fail freely (rankSafely).
type Ranker interface {
	Rank(query string, candidates []*tools.Definition) ([]string, error)
}

// defaultRanker is the one BuildOffer uses when none is given; it lives as
// long as the process, so its cache is filled once.
var defaultRanker Ranker = NewWordRanker()

// WordRanker is the default Ranker: word overlap between the request and
// each tool's name and description (rankWords), with no model and no
// network. Each shared word scores its rarity among the candidates,
// ln(1 + N/df), so "create" counts for less than "connection"; a word in
// the tool's name counts twice. Tool words are cached per definition.
type WordRanker struct {
	mu    sync.RWMutex
	cache map[*tools.Definition]*toolWords
}

// NewWordRanker returns a WordRanker with an empty cache.
func NewWordRanker() *WordRanker {
	return &WordRanker{cache: map[*tools.Definition]*toolWords{}}
}

// toolWords are one tool's words: in its name (2) or only its description (1).
type toolWords struct {
	name, description string
	words             map[string]uint8
}

// Rank implements Ranker.
func (r *WordRanker) Rank(query string, candidates []*tools.Definition) ([]string, error) {
	qwords := rankWords(query)
	if len(qwords) == 0 || len(candidates) == 0 {
		return nil, nil
	}
	qwords = dedupe(qwords)
	tw := r.wordsOf(candidates)
	weight := make([]float64, len(qwords))
	for k, w := range qwords {
		df := 0
		for _, t := range tw {
			if t.words[w] != 0 {
				df++
			}
		}
		if df > 0 {
			weight[k] = math.Log(1 + float64(len(candidates))/float64(df))
		}
	}
	var hits []hit
	for i, t := range tw {
		var s float64
		for k, w := range qwords {
			s += weight[k] * float64(t.words[w])
		}
		if s > 0 {
			hits = append(hits, hit{candidates[i].Name, s})
		}
	}
	return bestFirst(hits), nil
}

// hit is a tool's name and its score for a request.
type hit struct {
	name  string
	score float64
}

// bestFirst sorts hits by falling score, ties in order, and returns their names.
func bestFirst(hits []hit) []string {
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.name
	}
	return names
}

// noWords are a nil or nameless definition's words: it matches nothing.
var noWords = &toolWords{}

// wordsOf returns the candidates' words, reading the text only of tools not in the cache.
func (r *WordRanker) wordsOf(candidates []*tools.Definition) []*toolWords {
	out := make([]*toolWords, len(candidates))
	var missing []int
	r.mu.RLock()
	for i, d := range candidates {
		if d == nil || d.Name == "" {
			out[i] = noWords
			continue
		}
		if t := r.cache[d]; t != nil && t.name == d.Name && t.description == d.Description {
			out[i] = t
		} else {
			missing = append(missing, i)
		}
	}
	r.mu.RUnlock()
	if len(missing) == 0 {
		return out
	}
	for _, i := range missing {
		d := candidates[i]
		t := &toolWords{name: d.Name, description: d.Description, words: map[string]uint8{}}
		for _, w := range rankWords(d.Description) {
			t.words[w] = 1
		}
		for _, w := range rankWords(d.Name) {
			t.words[w] = 2
		}
		out[i] = t
	}
	r.mu.Lock()
	for _, i := range missing {
		r.cache[candidates[i]] = out[i]
	}
	r.mu.Unlock()
	return out
}

// rankWords splits text into lower-cased, synonym-mapped, stemmed words
// ("to-do" → task, "posted" → post), leaving out stop words.
func rankWords(text string) []string {
	text = toDo.Replace(text)
	var out []string
	for _, w := range splitIdentifierWords(text) {
		w = strings.ToLower(w)
		if s, ok := synonyms[w]; ok {
			w = s
		}
		if stopWords[w] || len(w) < 2 {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// toDo joins "to-do", which would otherwise split into two stop words.
var toDo = strings.NewReplacer("to-do", "todo", "To-do", "todo", "To-Do", "todo", "TO-DO", "todo")

// splitIdentifierWords cuts text at anything but letters and digits and at
// a lower-to-upper case change, so "assigneeId" and "hub_list_tasks" give
// their words.
func splitIdentifierWords(text string) []string {
	var out []string
	start := -1
	var prev rune
	for i, r := range text {
		letterOrDigit := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !letterOrDigit:
			if start >= 0 {
				out = append(out, text[start:i])
				start = -1
			}
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			out = append(out, text[start:i])
			start = i
		}
		prev = r
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

// stem is a rough English stemmer: enough that plurals and -ed/-ing forms
// meet their base word, applied alike to requests and tool text so its
// oddities cancel out ("update" and "updated" both become "updat").
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		w = w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	}
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1] // "planned" → "plann" → "plan"
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// synonyms map everyday words of requests onto the words tools are
// described with. Kept short and general, not one entry per test request.
var synonyms = map[string]string{
	"todo": "task", "todos": "task", "reminder": "task", "reminders": "task", "remind": "task",
	"add": "create", "new": "create", "make": "create",
	"remove": "delete", "erase": "delete", "scrap": "delete",
	"rename": "update", "edit": "update", "modify": "update", "change": "update", "mark": "update", "reschedule": "update",
	"show": "list", "view": "list", "display": "list",
	"teammate": "people", "teammates": "people", "colleague": "people", "colleagues": "people",
	"member": "people", "members": "people", "person": "people", "everyone": "people", "who": "people",
	"initiative": "project", "initiatives": "project", "workstream": "project", "workstreams": "project",
	"announce": "post", "notify": "post", "tell": "post", "share": "post", "send": "post",
	"app": "connection", "apps": "connection", "integration": "connection", "integrations": "connection",
	"connect": "connection", "connected": "connection",
	"assignee": "assign", "assigned": "assign",
}

// stopWords carry no meaning for picking a tool.
var stopWords = wordSet(`a about all am an and any are as at be been but by can could did do does don for from get had has have he her
here his how hub i id ids if in into is it its just know let like ll me more my need no not now of on one only
or our out please re she should so some space than that the their them then there these they this those to up
us use ve want was we were what when where which will with would you your`)

func wordSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(text) {
		set[w] = true
	}
	return set
}

// localMatch is the backstop the offer falls back to when ranking fails,
// and what hub_find_tools searches with. It is deliberately crude, with no
// cache or state, so it cannot fail the way the ranker did. It returns at
// most limit tools, best first, ties in the given order.
func localMatch(query string, defs []*tools.Definition, limit int) []string {
	words := slices.DeleteFunc(strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}), func(w string) bool { return len(w) < 3 || stopWords[w] })
	if len(words) == 0 || limit <= 0 {
		return nil
	}
	var hits []hit
	for _, d := range defs {
		if d == nil || d.Name == "" {
			continue
		}
		name, desc := strings.ToLower(d.Name), strings.ToLower(d.Description)
		var score float64
		for _, w := range words {
			switch {
			case strings.Contains(name, w):
				score += 2
			case strings.Contains(desc, w):
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{d.Name, score})
		}
	}
	names := bestFirst(hits)
	return names[:min(len(names), limit)]
}
