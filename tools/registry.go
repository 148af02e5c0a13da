package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"

	"hub/workspace"
)

// Handler runs a validated call.
type Handler func(ctx context.Context, env Env, d *Definition, input json.RawMessage) (Result, error)

// Middleware sees every call before it runs and may veto it (return an
// error without calling next) or act after it.
type Middleware func(next Handler) Handler

// Registry holds every tool Hub has, in registration order.
type Registry struct {
	byName     map[string]*Definition
	order      []string
	middleware []Middleware
}

// NewRegistry returns a registry with the given tools and the checks every
// call passes, in order: access (CheckAccess), settings (CheckSettings) and
// the write policy (WritePolicy). Middleware added with Use run after them.
func NewRegistry(defs ...*Definition) *Registry {
	r := &Registry{byName: map[string]*Definition{}}
	for _, d := range defs {
		r.Add(d)
	}
	r.Use(CheckAccess)
	r.Use(CheckSettings)
	r.Use(WritePolicy)
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

// Use appends a middleware; the first added runs first.
func (r *Registry) Use(m Middleware) { r.middleware = append(r.middleware, m) }

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
// settings, in registration order: the rules CheckAccess and CheckSettings
// still enforce on every call.
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

// Permits runs CheckAccess's and CheckSettings' checks for d under env,
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
// the tool's prepare step, the middleware chain (which may veto or hold the
// call) and the tool, whose errors become structured errors.
func (r *Registry) Dispatch(ctx context.Context, env Env, call Call) (Result, *Error) {
	return r.dispatch(ctx, env, call, false)
}

// Can runs Dispatch's checks without running the tool: nil means the call
// would run or be held.
func (r *Registry) Can(ctx context.Context, env Env, call Call) *Error {
	_, err := r.dispatch(ctx, env, call, true)
	return err
}

func (r *Registry) dispatch(ctx context.Context, env Env, call Call, dryRun bool) (res Result, terr *Error) {
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
	h := Handler(func(ctx context.Context, env Env, d *Definition, input json.RawMessage) (Result, error) {
		if dryRun {
			return Result{}, nil
		}
		return d.run(ctx, env, input)
	})
	for i := len(r.middleware) - 1; i >= 0; i-- {
		h = r.middleware[i](h)
	}
	out, err := h(ctx, env, d, input)
	if err != nil {
		return Result{}, AsError(err)
	}
	return out, nil
}
