// Package api is Hub's HTTP face: the gin router, bearer-token auth, request
// and response types, the error body, and the SSE stream. Handlers decode,
// validate, call one service and map errors in one place (respondError);
// business rules live in package workspace and in the workflows.
//
// Every route is an entry of the table in routes.go, which registers its
// handler and describes it: the OpenAPI document (/api/openapi.json,
// openapi.go) is made of that table and of the request and response types
// it names, so a new route is added there, with its types, or not at all.
//
// The contract is docs/api.md; clients are written against it exactly.
package api
