// Package apps reaches connected apps over the network. Its Client posts
// JSON to a webhook the way an outside write must go: only to public
// addresses (unless allowed), with an idempotency key, within a deadline,
// and with an error that says whether anything was sent.
//
// Addresses are checked where the connection is made (net.Dialer.Control),
// on the IP the name resolved to, for every attempt and every redirect hop:
// a name that resolves to a private address, or re-resolves to one between
// a check and a connect (DNS rebinding), never reaches it.
package apps
