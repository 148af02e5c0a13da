package tools_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
)

func TestListTitles(t *testing.T) {
	t.Parallel()
	titled := func(titles ...string) []tools.Titled {
		out := make([]tools.Titled, len(titles))
		for i, s := range titles {
			out[i] = tools.Titled{Title: s}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		items []tools.Titled
		want  string
	}{
		{"none", nil, ""},
		{"one", titled("A"), "“A”"},
		{"two", titled("A", "B"), "“A” and “B”"},
		{"three", titled("A", "B", "C"), "“A”, “B” and “C”"},
		{"five", titled("A", "B", "C", "D", "E"), "“A”, “B”, “C”, “D” and “E”"},
		{"six", titled("A", "B", "C", "D", "E", "F"), "“A”, “B”, “C”, “D”, “E” and 1 more"},
		{"nine", titled("A", "B", "C", "D", "E", "F", "G", "H", "I"), "“A”, “B”, “C”, “D”, “E” and 4 more"},
		{"repeated titles get their due dates", []tools.Titled{{Title: "Pay rent", DueDate: "2026-03-01"}, {Title: "Pay rent", DueDate: "2026-04-01"}, {Title: "Call Mira"}},
			"“Pay rent” (due 2026-03-01), “Pay rent” (due 2026-04-01) and “Call Mira”"},
		{"repeated titles without dates get numbers", titled("Call Mira", "Draft", "Call Mira"), "“Call Mira” (1), “Draft” and “Call Mira” (2)"},
		{"the same date does not tell copies apart", []tools.Titled{{Title: "X", DueDate: "2026-03-01"}, {Title: "X", DueDate: "2026-03-01"}},
			"“X” (1) and “X” (2)"},
		{"dates where they tell apart, numbers where not", []tools.Titled{{Title: "X", DueDate: "2026-03-01"}, {Title: "X"}, {Title: "X"}},
			"“X” (due 2026-03-01), “X” (2) and “X” (3)"},
		{"a unique title keeps no date", []tools.Titled{{Title: "A", DueDate: "2026-03-01"}, {Title: "B"}}, "“A” and “B”"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tools.ListTitles(tc.items))
		})
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()
	require.Equal(t, "task", tools.Plural(1, "task", "tasks"))
	require.Equal(t, "tasks", tools.Plural(0, "task", "tasks"))
	require.Equal(t, "tasks", tools.Plural(2, "task", "tasks"))
}
