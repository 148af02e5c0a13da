// Package web is how the assistant reads the web: a search provider
// (Searcher: SearXNG or the Brave Search API) chosen by the operator, and a
// page reader (Reader) that returns one public page or PDF's main content
// as Markdown, cut to MaxPageChars with a note naming what was left out.
//
// The reader connects only through apps.Guard, the private-network check
// webhooks use; it runs no page script and signs in nowhere. The search
// provider is the operator's own address (often on the private network),
// so it is reached without the guard.
package web
