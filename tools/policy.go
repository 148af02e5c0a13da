package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"hub/workspace"
)

// CheckAccess refuses a write from a role that may not write, whatever the
// offer said; reads and writes both re-check the space in the domain service.
var CheckAccess = refusing(func(d *Definition, env Env) *Error { return accessError(d, env.Role) })

// CheckSettings refuses a write in an area the person's settings do not
// allow, and any connected-app write while those are switched off.
var CheckSettings = refusing(func(d *Definition, env Env) *Error { return settingsError(d, env.Settings) })

// refusing is a middleware that vetoes a call check refuses.
func refusing(check func(*Definition, Env) *Error) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, env Env, d *Definition, input json.RawMessage) (Result, error) {
			if e := check(d, env); e != nil {
				return Result{}, e
			}
			return next(ctx, env, d, input)
		}
	}
}

// accessError is why role may not use d (CheckAccess), nil if it may.
func accessError(d *Definition, role workspace.Role) *Error {
	switch {
	case d.IsWrite && !role.CanWrite():
		return &Error{Code: CodeForbidden, Message: fmt.Sprintf("%s may not change records in this space", workspace.WithArticle(string(role)))}
	case d.OwnersOnly && role != workspace.RoleOwner:
		return &Error{Code: CodeForbidden, Message: fmt.Sprintf("only an owner may change who is in this space, not %s", workspace.WithArticle(string(role)))}
	case d.Area == AreaApps && role == workspace.RoleGuest:
		return &Error{Code: CodeForbidden, Message: "a guest cannot use this space's connected apps"}
	}
	return nil
}

// settingsError is why the settings refuse d (CheckSettings), nil if they
// allow it.
func settingsError(d *Definition, s workspace.Settings) *Error {
	switch {
	case d.IsWrite && !d.AreaOfSteps && !d.Personal && !s.AllowsArea(d.Area):
		return &Error{Code: CodeRefused, Message: fmt.Sprintf("writes in %s are switched off in your assistant settings", d.Area)}
	case d.IsWrite && d.Area == AreaApps && !s.ConnectedAppWrites:
		return &Error{Code: CodeRefused, Message: "changes in connected apps are switched off in your assistant settings"}
	}
	return nil
}

// WritePolicy holds a write for the person's Apply instead of running it
// when the write policy says so (preview, needs-me) and always for
// connected-app and always-held tools. A held call's result is its preview
// and the prepared input Apply will run. Apply itself passes (env.Applying).
func WritePolicy(next Handler) Handler {
	return func(ctx context.Context, env Env, d *Definition, input json.RawMessage) (Result, error) {
		if !d.IsWrite || env.Applying || (!d.alwaysHeld() && holdsNothing(env.Settings.WritePolicy)) {
			return next(ctx, env, d, input)
		}
		preview, err := d.Preview(ctx, env, input)
		if err != nil {
			return Result{}, err
		}
		return Result{Held: true, Summary: preview, Input: input}, nil
	}
}

func holdsNothing(policy string) bool { return policy == "" || policy == workspace.PolicyImmediate }

// Holds tells whether a call of this tool would be held under the settings,
// for the offer and the instructions' write-mode line.
func (d *Definition) Holds(s workspace.Settings) bool {
	return d.IsWrite && (d.alwaysHeld() || !holdsNothing(s.WritePolicy))
}
