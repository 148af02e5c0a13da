package assistant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"hub/hub"
)

// MaxSelectedTextChars bounds the selected text a client may send.
const MaxSelectedTextChars = 2000

// TurnContext is what goes in front of the person's message: today, what is
// on screen, and the records they mentioned. Only what is there is written.
type TurnContext struct {
	Now      time.Time
	Location *time.Location
	Mentions []hub.Ref
	// Page is the client's "context" object as sent (view, open item,
	// selection); it is passed on as data, never as instructions.
	Page string
}

// Render writes the context block.
func (c TurnContext) Render() string {
	loc := c.Location
	if loc == nil {
		loc = time.UTC
	}
	now := c.Now.In(loc)
	_, week := now.ISOWeek()
	var b strings.Builder
	b.WriteString("<context>\n")
	fmt.Fprintf(&b, "Today: %s, %s (week %d, time zone %s)\n", now.Weekday(), now.Format(time.DateOnly), week, loc.String())
	if len(c.Mentions) > 0 {
		b.WriteString("Mentioned:\n")
		for _, m := range c.Mentions {
			fmt.Fprintf(&b, "- %s\n", Link(m))
		}
	}
	if page := strings.TrimSpace(c.Page); page != "" && page != "{}" && page != "null" {
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(page)); err == nil {
			page = compact.String()
		}
		fmt.Fprintf(&b, "On screen: %s\n", page)
	}
	b.WriteString("</context>")
	return b.String()
}

// Link names a record for the model: its title as a link carrying the id.
func Link(r hub.Ref) string {
	return fmt.Sprintf("[%s](hub://%s/%s)", r.Label, r.Kind, r.ID)
}
