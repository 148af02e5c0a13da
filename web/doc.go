// Package web is how the assistant reads the web: a search provider behind
// a small interface (Searcher: SearXNG's JSON API, self-hostable, or the
// Brave Search API, hosted), chosen by the operator's HUB_WEB_SEARCH_*
// settings, and a page reader (Reader) that fetches one public page or PDF
// and returns its main content as Markdown.
//
// The reader connects only through apps.Guard, the private-network check
// webhooks use: http and https only, every resolved address and every
// redirect checked, at most MaxPageBytes read and MaxFetchTime spent. It
// runs no page script and signs in nowhere; a page that shows nothing
// without either is an error that says so. Its text is cut to
// MaxPageChars with a note naming what was left out.
//
// The search provider is the operator's own choice and address (a
// SearXNG on the private network is the usual setup), so it is reached
// without the guard, with a plain client and its own deadline.
package web
