// Package e2e holds Hub's end-to-end tests: a whole Hub (embedded Temporal,
// real Postgres, the scripted model over HTTP, worker and api) driven only
// through its HTTP api, as a client would.
package e2e
