// Package usage keeps what every model call used and cost, and each space's
// monthly budget for them.
//
// A call is a row of model_calls written twice: reserved before the request
// (Reserve: the estimate, checked against the space's budget atomically, so
// two turns racing for the last of a budget cannot both pass), and settled
// after it with the provider's tokens and their real cost (Settle). A
// reservation that never settles (a killed worker) is released when the
// call is retried (ReleaseTurn, ReleaseCompletion) or by the sweeper (ReleaseStale). A row's id
// is the request's identity, so a repeated write changes nothing.
//
// Prices are not this package's: the caller passes a call's cost.
package usage
