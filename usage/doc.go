// Package usage keeps what every model call used and cost, and each space's
// monthly budget for them.
//
// A call is a row of model_calls written twice: as a reservation before the
// request (Reserve: the estimated cost, checked against the space's budget
// and added to the month's reserved total in one transaction, so two turns
// racing for the last of a budget cannot both pass), and settled after it
// with the tokens the provider reported and their real cost (Settle). A
// reservation that never settles — its worker was killed — is released
// when the turn's call is retried (ReleaseTurn) and, at the latest, by the sweeper
// (ReleaseStale). A row's id is the request's identity, so a repeated write
// changes nothing and a retried activity's own request is a row of its own.
//
// Query answers GET /api/usage; Metrics are the per-model Prometheus
// counters. Prices are not this package's: the caller passes a call's
// cost, from llm.Price.
package usage
