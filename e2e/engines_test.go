//go:build e2e

package e2e

import "testing"

// onBothEngines runs a test on Postgres and on SQLite (hub dev).
func onBothEngines(t *testing.T, test func(t *testing.T, sqlite bool)) {
	for _, sqlite := range []bool{false, true} {
		name := "postgres"
		if sqlite {
			name = "sqlite"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, sqlite)
		})
	}
}
