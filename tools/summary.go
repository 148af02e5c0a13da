package tools

import (
	"fmt"
	"strings"
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
	count := map[string]int{}
	for _, it := range items {
		count[it.Title]++
	}
	dates := map[string]map[string]int{}
	for _, it := range items {
		if dates[it.Title] == nil {
			dates[it.Title] = map[string]int{}
		}
		dates[it.Title][it.DueDate]++
	}
	seen := map[string]int{}
	var names []string
	for _, it := range items {
		name := "“" + it.Title + "”"
		if count[it.Title] > 1 {
			seen[it.Title]++
			if it.DueDate != "" && dates[it.Title][it.DueDate] == 1 {
				name += " (due " + it.DueDate + ")"
			} else {
				name += fmt.Sprintf(" (%d)", seen[it.Title])
			}
		}
		names = append(names, name)
	}
	if len(names) > maxTitlesInSummary {
		return strings.Join(names[:maxTitlesInSummary], ", ") + fmt.Sprintf(" and %d more", len(names)-maxTitlesInSummary)
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Plural picks "task" or "tasks".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
