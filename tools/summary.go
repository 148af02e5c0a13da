package tools

import (
	"fmt"
	"strings"

	"hub/workspace"
)

// maxTitlesInSummary: past five titles a summary says "and N more".
const maxTitlesInSummary = 5

// Titled is a record as a summary names it.
type Titled struct {
	Title   string
	DueDate string
}

// ListTitles names records for people: “A”, “B” and “C”; past five, "and
// N more"; a title that repeats gets its due date, or a number when the
// dates do not tell the copies apart.
func ListTitles(items []Titled) string {
	count, copies := map[string]int{}, map[Titled]int{}
	for _, it := range items {
		count[it.Title]++
		copies[it]++
	}
	seen := map[string]int{}
	var names []string
	for _, it := range items {
		name := "“" + it.Title + "”"
		if count[it.Title] > 1 {
			seen[it.Title]++
			if it.DueDate != "" && copies[it] == 1 {
				name += " (due " + it.DueDate + ")"
			} else {
				name += fmt.Sprintf(" (%d)", seen[it.Title])
			}
		}
		names = append(names, name)
	}
	return joinNames(names)
}

// joinNames joins "a, b and c"; past five, "and N more".
func joinNames(names []string) string {
	if len(names) > maxTitlesInSummary {
		return strings.Join(names[:maxTitlesInSummary], ", ") + fmt.Sprintf(" and %d more", len(names)-maxTitlesInSummary)
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// records shapes the records a result names: each one's data for the
// model, its title for the summary and its ref.
func records[R, D any](rs []R, data func(R) D, title func(R) Titled, ref func(R) workspace.Ref) ([]D, []Titled, []workspace.Ref) {
	ds, titled, refs := make([]D, len(rs)), make([]Titled, len(rs)), make([]workspace.Ref, len(rs))
	for i, r := range rs {
		ds[i], titled[i], refs[i] = data(r), title(r), ref(r)
	}
	return ds, titled, refs
}

// Plural picks "task" or "tasks".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pageSummary is a list tool's summary: how many records match and, when
// the page is not all of them, which of them it shows.
func pageSummary(total, offset int, titled []Titled, one, many string) string {
	found := fmt.Sprintf("Found %d %s", total, Plural(total, one, many))
	switch {
	case total == 0:
		return fmt.Sprintf("No %s match.", many)
	case len(titled) == 0:
		return fmt.Sprintf("%s, none from number %d on.", found, offset+1)
	case len(titled) == total:
		return fmt.Sprintf("%s: %s.", found, ListTitles(titled))
	case len(titled) == 1:
		return fmt.Sprintf("%s, showing number %d: %s.", found, offset+1, ListTitles(titled))
	}
	return fmt.Sprintf("%s, showing %d–%d: %s.", found, offset+1, offset+len(titled), ListTitles(titled))
}

// listPage places a list tool's page among all that match, after the page's
// records in its data. More tells the model how to read on; it names no
// number, since fitList may move nextOffset.
type listPage struct {
	Total      int64  `json:"total"`
	Offset     int    `json:"offset"`
	NextOffset int    `json:"nextOffset,omitempty"`
	More       string `json:"more,omitempty"`
}

func newListPage(tool, many string, total int64, offset, next int) listPage {
	p := listPage{Total: total, Offset: offset, NextOffset: next}
	if next > 0 {
		p.More = fmt.Sprintf("More %s match than this page holds: call %s again with the same filters and offset set to nextOffset for the next ones.", many, tool)
	}
	return p
}
