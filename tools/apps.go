package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"hub/apps"
	"hub/workspace"
)

// Poster sends an update to a connected app (apps.Client).
type Poster interface {
	Post(ctx context.Context, url, idempotencyKey string, payload any) (apps.Response, error)
}

// ConnectionData is a connected app as tool results carry it: its id for
// calls, its name and kind for people, never its URL.
type ConnectionData struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Enabled bool   `json:"enabled"`
	// Failure says why Hub's last post to it failed; absent when it worked.
	Failure string `json:"failure,omitempty"`
}

// ListConnectionsInput is hub_list_connections' input: nothing.
type ListConnectionsInput struct{}

// ListConnections is hub_list_connections: the space's connected apps by
// name and kind (none for a guest, whom Dispatch refuses anyway).
var ListConnections = Define(Spec{
	Name: "hub_list_connections", Area: AreaApps,
	Description: "List the apps connected to this space (webhooks, e.g. a team channel, and MCP servers, whose tools are named mcp_…) with their ids, names and kinds. Use a webhook's id with apps_post_update.",
}, func(ctx context.Context, env Env, _ ListConnectionsInput) (Result, error) {
	conns, err := env.Workspace.ListConnections(ctx, env.Actor, env.SpaceID)
	if err != nil {
		return Result{}, err
	}
	data, titled, refs := records(conns, func(c workspace.Connection) ConnectionData {
		return ConnectionData{ID: c.ID, Name: c.Name, Kind: c.Kind, Enabled: c.Enabled, Failure: c.Failure}
	}, func(c workspace.Connection) Titled { return Titled{Title: c.Name} }, workspace.ConnectionRef)
	summary := "No apps are connected to this space."
	if len(conns) > 0 {
		summary = fmt.Sprintf("Found %d connected %s: %s.", len(conns), Plural(len(conns), "app", "apps"), ListTitles(titled))
	}
	return Result{Summary: summary, Data: struct {
		Connections []ConnectionData `json:"connections"`
	}{data}, Refs: refs}, nil
})

// Limits of an update, in characters: a chat message, not a document.
const (
	maxUpdateText  = 4000
	maxUpdateTitle = 200
	// previewQuote is how much of the text a preview quotes.
	previewQuote = 120
)

// PostUpdateInput is apps_post_update's input.
type PostUpdateInput struct {
	ConnectionID string `json:"connectionId" jsonschema:"minLength=1" jsonschema_description:"The connected app's id, from hub_list_connections."`
	Text         string `json:"text" jsonschema:"minLength=1,maxLength=4000" jsonschema_description:"The update as it should read."`
	Title        string `json:"title,omitempty" jsonschema:"maxLength=200" jsonschema_description:"A short heading for the update."`
}

// updatePayload is the JSON a webhook receives.
type updatePayload struct {
	Text   string `json:"text"`
	Title  string `json:"title"`
	Space  string `json:"space"`
	SentBy string `json:"sentBy"`
}

// PostUpdate makes apps_post_update, which posts through c keyed by Hub's
// call id, so a resent Apply is one post to an app that honours the key.
func PostUpdate(c Poster) *Definition {
	return Define(Spec{
		Name: "apps_post_update", Area: AreaApps, IsWrite: true, Risk: RiskMedium,
		OutsideTransaction: true, AlwaysHold: true,
		Description: "Post an update (text and an optional title) to an app connected to this space, e.g. a team channel's webhook. It waits for the person's Apply and cannot be undone. Get the app's id from hub_list_connections.",
	}, func(ctx context.Context, env Env, in PostUpdateInput) (Result, error) {
		conn, err := postableConnection(ctx, env, in)
		if err != nil {
			return Result{}, err
		}
		if c == nil {
			return Result{}, Errorf(CodeFailed, "connected apps are not set up on this Hub server; nothing was sent to %s", conn.Name)
		}
		space, err := env.Workspace.GetSpace(ctx, env.Actor.PersonID, env.SpaceID)
		if err != nil {
			return Result{}, err
		}
		person, err := env.Workspace.GetPerson(ctx, env.Actor.PersonID)
		if err != nil {
			return Result{}, err
		}
		payload := updatePayload{Text: strings.TrimSpace(in.Text), Title: strings.TrimSpace(in.Title), Space: space.Name, SentBy: person.Name}
		resp, err := c.Post(ctx, conn.URL, env.CallID, payload)
		recordPost(ctx, env, conn, err)
		if err != nil {
			return Result{}, postError(conn.Name, err)
		}
		data := struct {
			ConnectionID string `json:"connectionId"`
			Status       int    `json:"status"`
		}{ConnectionID: conn.ID, Status: resp.Status}
		return Result{Summary: fmt.Sprintf("Posted to %s.", conn.Name), Data: data, Refs: []workspace.Ref{workspace.ConnectionRef(conn)}}, nil
	}, Preview(func(ctx context.Context, env Env, in PostUpdateInput) (string, error) {
		conn, err := postableConnection(ctx, env, in)
		if err != nil {
			return "", err
		}
		what := "“" + shorten(strings.TrimSpace(in.Text), previewQuote) + "”"
		if t := strings.TrimSpace(in.Title); t != "" {
			what = "“" + shorten(t, previewQuote) + "”: " + what
		}
		return fmt.Sprintf("Post %s to %s", what, conn.Name), nil
	}))
}

// postableConnection checks an update and finds the connected app it goes
// to, for the preview and again when it runs (the app may have changed).
func postableConnection(ctx context.Context, env Env, in PostUpdateInput) (workspace.Connection, error) {
	if strings.TrimSpace(in.Text) == "" {
		return workspace.Connection{}, &workspace.InvalidError{Path: "/text", Message: "the update has no text"}
	}
	if utf8.RuneCountInString(in.Text) > maxUpdateText {
		return workspace.Connection{}, &workspace.InvalidError{Path: "/text", Message: fmt.Sprintf("an update has at most %d characters", maxUpdateText)}
	}
	if utf8.RuneCountInString(in.Title) > maxUpdateTitle {
		return workspace.Connection{}, &workspace.InvalidError{Path: "/title", Message: fmt.Sprintf("a title has at most %d characters", maxUpdateTitle)}
	}
	conn, err := env.Workspace.GetConnection(ctx, env.Actor, env.SpaceID, in.ConnectionID)
	if err != nil {
		var nf *workspace.NotFoundError
		if errors.As(err, &nf) {
			nf.Path = "/connectionId"
			return workspace.Connection{}, nf
		}
		return workspace.Connection{}, err
	}
	switch {
	case conn.Kind != workspace.ConnectionWebhook:
		return workspace.Connection{}, Errorf(CodeRefused, "%s is %s, which cannot take posted updates", conn.Name, workspace.WithArticle(conn.Kind))
	case !conn.Enabled:
		return workspace.Connection{}, Errorf(CodeRefused, "%s is switched off in this space's connected apps", conn.Name)
	case conn.URL == "": // the domain shows the URL only to who may post
		return workspace.Connection{}, Errorf(CodeForbidden, "you may not post to %s", conn.Name)
	}
	return conn, nil
}

// recordPost keeps whether the app took the post, so the instructions name
// it as failing until a post works again. A lost answer (ErrUnknown) says
// nothing about the app. Best effort: the call reports the post's outcome.
func recordPost(ctx context.Context, env Env, conn workspace.Connection, err error) {
	failure := ""
	var status *apps.StatusError
	var refused *apps.RefusedError
	switch {
	case err == nil:
	case errors.As(err, &status):
		failure = fmt.Sprintf("it answered %d %s", status.Status, http.StatusText(status.Status))
	case errors.Is(err, apps.ErrUnreachable):
		failure = "Hub could not connect to it"
	case errors.As(err, &refused):
		failure = "Hub refused to post to it: " + refused.Reason
	case errors.Is(err, apps.ErrRefused):
		failure = "Hub refused to post to it"
	default:
		return
	}
	if failure == conn.Failure {
		return
	}
	if rerr := env.Workspace.RecordConnectionPost(ctx, env.SpaceID, conn.ID, failure); rerr != nil {
		slog.WarnContext(ctx, "recording a connected app's post failed", "connection", conn.ID, "error", rerr)
	}
}

// postError says what happened to a post in the person's words, keeping
// apart "nothing was sent" from "it may have arrived".
func postError(app string, err error) error {
	var (
		refused     *apps.RefusedError
		status      *apps.StatusError
		unreachable *apps.UnreachableError
		unknown     *apps.UnknownError
	)
	switch {
	case errors.As(err, &refused):
		return Errorf(CodeRefused, "Hub did not post to %s (%s); nothing was sent", app, refused.Reason)
	case errors.As(err, &status):
		return Errorf(CodeFailed, "%s answered %d %s, so the update was not posted", app, status.Status, http.StatusText(status.Status))
	case errors.As(err, &unreachable):
		return Errorf(CodeFailed, "Hub could not connect to %s, so nothing was sent", app)
	case errors.As(err, &unknown):
		if unknown.Timeout {
			return OutcomeUnknownf("%s did not answer within %s after the update was sent, so it may or may not have been posted", app, unknown.After)
		}
		return OutcomeUnknownf("the connection to %s ended after the update was sent and before it answered, so it may or may not have been posted", app)
	}
	return OutcomeUnknownf("posting to %s failed in a way Hub cannot tell apart from a lost answer, so it may or may not have been posted", app)
}

// shorten cuts s to at most n characters, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
