// Package tools is the contract every assistant tool goes through: a
// definition (name, area, description, an input schema generated from a Go
// type, write flags), a registry, and Dispatch, which takes a call as
// untrusted JSON and answers with a result or a structured error, never a
// panic. The Hub tools live beside it, one file per domain.
//
// The model only picks among the tools a turn offers; access and write
// checks live in Dispatch, not in the prompt.
package tools
