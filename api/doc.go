// Package api is Hub's HTTP face: the gin router, auth, request and
// response types, the error body, and the SSE streams. Handlers decode,
// validate, call one service and map errors in one place (respondError).
//
// Every route is an entry of the table in routes.go, which registers its
// handler and describes it: the OpenAPI document is made of that table and
// of the types it names. The contract is docs/api.md.
package api
