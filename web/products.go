package web

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxProducts is how many products of a page's structured data a read
// lists.
const maxProducts = 20

// productsOf reads schema.org Products from a page's JSON-LD blocks
// (<script type="application/ld+json">, data a page carries for search
// engines; read as data, never run) and lists each with its price, as
// Markdown lines: a shop's prices are often nowhere in its readable text.
func productsOf(blocks []string) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		if len(out) >= maxProducts {
			return
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			if g, ok := x["@graph"]; ok {
				visit(g)
			}
			if !hasType(x["@type"], "Product") {
				return
			}
			line := productLine(x)
			if line != "" && !seen[line] {
				seen[line] = true
				out = append(out, line)
			}
		}
	}
	for _, b := range blocks {
		var v any
		if json.Unmarshal([]byte(strings.TrimSpace(b)), &v) == nil {
			visit(v)
		}
	}
	return out
}

func hasType(t any, want string) bool {
	switch x := t.(type) {
	case string:
		return strings.EqualFold(x, want) || strings.HasSuffix(x, "/"+want)
	case []any:
		for _, e := range x {
			if hasType(e, want) {
				return true
			}
		}
	}
	return false
}

func productLine(p map[string]any) string {
	name := strings.TrimSpace(text(p["name"]))
	if name == "" {
		return ""
	}
	var prices []string
	offers := p["offers"]
	if o, ok := offers.(map[string]any); ok {
		offers = []any{o}
	}
	list, _ := offers.([]any)
	for _, e := range list {
		o, ok := e.(map[string]any)
		if !ok {
			continue
		}
		cur, price := text(o["priceCurrency"]), text(o["price"])
		if price == "" && text(o["lowPrice"]) != "" {
			price = text(o["lowPrice"]) + "–" + text(o["highPrice"])
		}
		if price == "" {
			continue
		}
		s := strings.TrimSpace(price + " " + cur)
		if a := text(o["availability"]); a != "" {
			s += " (" + a[strings.LastIndex(a, "/")+1:] + ")"
		}
		prices = append(prices, s)
		if len(prices) == 3 {
			break
		}
	}
	line := "- " + shorten(name, 120)
	if len(prices) > 0 {
		line += ": " + strings.Join(prices, "; ")
	}
	return line
}

// text is a JSON-LD value as text: strings as they are, numbers as
// written.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
	}
	return ""
}
