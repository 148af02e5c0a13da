// Package workflows holds Hub's Temporal workflows and their protocol: the
// workflow ids, signal, query and search attribute names, and the payload
// types. Workflow code here is deterministic: it uses only workflow.* APIs
// and calls activities by method reference; every read, write and model
// call happens in package activities.
package workflows
