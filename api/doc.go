// Package api is Hub's HTTP face: the gin router, bearer-token auth, request
// and response types, the error body, and the SSE stream. Handlers decode,
// validate, call one service and map errors in one place (respondError);
// business rules live in package workspace and in the workflows.
//
// The contract is docs/api.md; clients are written against it exactly.
package api
