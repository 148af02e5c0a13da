package tools

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"

	"hub/workspace"
)

// Registry holds every tool Hub has, in registration order.
type Registry struct {
	byName map[string]*Definition
	order  []string
}

// NewRegistry returns a registry with the given tools.
func NewRegistry(defs ...*Definition) *Registry {
	r := &Registry{byName: map[string]*Definition{}}
	for _, d := range defs {
		r.Add(d)
	}
	return r
}

// Add registers a tool; a name used twice is a programming error.
func (r *Registry) Add(d *Definition) {
	if _, dup := r.byName[d.Name]; dup {
		panic("tool registered twice: " + d.Name)
	}
	r.byName[d.Name] = d
	r.order = append(r.order, d.Name)
}

// Get returns a tool by name.
func (r *Registry) Get(name string) (*Definition, bool) {
	d, ok := r.byName[name]
	return d, ok
}

// Has tells whether a tool of that name is registered.
func (r *Registry) Has(name string) bool { return r.byName[name] != nil }

// Granted returns the tools a role may be offered, in registration order: a
// viewer is offered no write tool, and only an owner an owners' tool.
func (r *Registry) Granted(role workspace.Role) []*Definition {
	return r.filter(func(d *Definition) bool {
		return !(d.IsWrite && !role.CanWrite() || d.OwnersOnly && role != workspace.RoleOwner)
	})
}

// Offerable returns the tools a person may be offered under their role and
// settings, in registration order: the rules Dispatch still enforces on
// every call.
func (r *Registry) Offerable(role workspace.Role, s workspace.Settings) []*Definition {
	return r.filter(func(d *Definition) bool { return accessError(d, role) == nil && settingsError(d, s) == nil })
}

func (r *Registry) filter(keep func(*Definition) bool) []*Definition {
	var out []*Definition
	for _, n := range r.order {
		if d := r.byName[n]; keep(d) {
			out = append(out, d)
		}
	}
	return out
}

// Permits runs Dispatch's access and settings checks for d under env,
// without input and without running anything: nil means a call of d would
// pass them.
func (r *Registry) Permits(ctx context.Context, env Env, d *Definition) *Error {
	if e := accessError(d, env.Role); e != nil {
		return e
	}
	return settingsError(d, env.Settings)
}

// Call is one tool call as the model sent it, with the names this turn
// offered.
type Call struct {
	Name      string
	Arguments string
	Offered   []string
}

// Dispatch runs a call and never panics: an unknown or unoffered name is
// unknown_tool; a schema failure is invalid_payload with every issue; then
// the tool's prepare step, the access and settings checks (Permits), the
// write policy (which may hold the call) and the tool, whose errors become
// structured errors.
func (r *Registry) Dispatch(ctx context.Context, env Env, call Call) (res Result, terr *Error) {
	d, ok := r.byName[call.Name]
	if !ok || !slices.Contains(call.Offered, call.Name) {
		return Result{}, &Error{Code: CodeUnknownTool, Message: fmt.Sprintf("no tool called %q", call.Name), Path: "/name"}
	}
	input, verr := d.validate(call.Arguments)
	if verr != nil {
		return Result{}, verr
	}
	env.Registry = r
	defer func() {
		if p := recover(); p != nil {
			slog.ErrorContext(ctx, "tool panicked", "tool", call.Name, "panic", p, "stack", string(debug.Stack()))
			res, terr = Result{}, &Error{Code: CodeFailed, Message: "the tool failed unexpectedly"}
		}
	}()
	if d.prepare != nil {
		prepared, err := d.prepare(ctx, env, input)
		if err != nil {
			return Result{}, AsError(err)
		}
		input = prepared
	}
	if e := r.Permits(ctx, env, d); e != nil {
		return Result{}, e
	}
	// A held call's result is its preview and the prepared input Apply will
	// run; Apply itself passes.
	if d.Holds(env.Settings) && !env.Applying {
		preview, err := d.Preview(ctx, env, input)
		if err != nil {
			return Result{}, AsError(err)
		}
		return Result{Held: true, Summary: preview, Input: input}, nil
	}
	out, err := d.run(ctx, env, input)
	if err != nil {
		return Result{}, AsError(err)
	}
	return out, nil
}
