package mcpapps

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/singleflight"

	"hub/apps"
	"hub/tools"
	"hub/workspace"
)

// Limits of a listing.
const (
	// MaxTools is the most tools one listing keeps; the rest are noted.
	MaxTools = 500
	// MaxSchemaBytes bounds one tool's input schema; a larger one is skipped
	// (and noted). 4 KiB holds real tools' schemas within
	// assistant.AppToolBudget (SampleTools).
	MaxSchemaBytes = 4 << 10
	// MaxDescription bounds a tool's description, in characters.
	MaxDescription = 1024
	// DefaultTTL is how old a listing may be before a turn lists it again.
	DefaultTTL = 10 * time.Minute
	// DefaultRetryFailing is how often a process lists a failing server
	// again, in the background, when turns start in its space.
	DefaultRetryFailing = time.Minute
)

// Options configure a Catalog.
type Options struct {
	// Guard checks every address (apps.NewGuard with HUB_APPS_ALLOW).
	Guard *apps.Guard
	// Box opens connection secrets (HUB_SECRET_KEY).
	Box *apps.SecretBox
	// Timeout bounds a listing and a read call; zero is DefaultTimeout.
	Timeout time.Duration
	// CallTimeout bounds a write call; zero is DefaultCallTimeout.
	CallTimeout time.Duration
	// TTL: zero is DefaultTTL.
	TTL time.Duration
	// RetryFailing: zero is DefaultRetryFailing.
	RetryFailing time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Catalog lists, keeps and calls the tools of a Hub's MCP servers. Make
// one per process and Close it at shutdown.
type Catalog struct {
	ws   *workspace.Service
	o    Options
	http *http.Client

	mu      sync.Mutex
	built   map[string]built // by connection id: the definitions of one listing
	watch   map[string]*watcher
	retried map[string]time.Time // by connection id: when a failing server was last listed again
	closed  bool
	holds   sync.WaitGroup // the watchers' and background listings' goroutines
	flight  singleflight.Group
	bg      context.Context // ends at Close: the background listings' context
	stopBG  context.CancelFunc
}

// built are a listing's definitions, compiled once per listing.
type built struct {
	listedAt time.Time
	defs     []*tools.Definition
}

// build compiles a listing's tools and keeps them for the connection,
// leaving out (and naming in l.Skipped) those whose schema cannot be used.
func (c *Catalog) build(conn workspace.Connection, at time.Time, l *listing) built {
	b := built{listedAt: at}
	kept := l.Tools[:0]
	for _, lt := range l.Tools {
		d, err := c.define(conn, lt)
		if err != nil {
			l.Skipped = append(l.Skipped, fmt.Sprintf("%.64s: its input schema cannot be used (%s)", lt.Name, schemaError(err)))
			continue
		}
		kept = append(kept, lt)
		b.defs = append(b.defs, d)
	}
	l.Tools = kept
	c.mu.Lock()
	c.built[conn.ID] = b
	c.mu.Unlock()
	return b
}

// New returns a Catalog over ws.
func New(ws *workspace.Service, o Options) *Catalog {
	o.Timeout = cmp.Or(max(o.Timeout, 0), DefaultTimeout)
	o.CallTimeout = cmp.Or(max(o.CallTimeout, 0), DefaultCallTimeout)
	o.TTL = cmp.Or(max(o.TTL, 0), DefaultTTL)
	o.RetryFailing = cmp.Or(max(o.RetryFailing, 0), DefaultRetryFailing)
	if o.Now == nil {
		o.Now = func() time.Time { return time.Now().UTC() }
	}
	bg, stop := context.WithCancel(context.Background())
	return &Catalog{ws: ws, o: o, http: newHTTPClient(o.Guard), built: map[string]built{}, watch: map[string]*watcher{},
		retried: map[string]time.Time{}, bg: bg, stopBG: stop}
}

// Close ends the sessions Hub holds, waiting until they are closed.
func (c *Catalog) Close() {
	c.mu.Lock()
	ws := c.watch
	c.watch, c.closed = map[string]*watcher{}, true
	c.mu.Unlock()
	c.stopBG()
	for _, w := range ws {
		w.stop()
	}
	c.holds.Wait()
	c.http.CloseIdleConnections()
}

// CheckURL is workspace.AppConnector's address check: the URL's host must
// resolve to addresses the guard lets Hub reach.
func (c *Catalog) CheckURL(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return errors.New("the URL cannot be read")
	}
	port := cmp.Or(u.Port(), map[string]string{"http": "80"}[u.Scheme], "443") // the scheme's default port
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	return c.o.Guard.CheckURL(ctx, u.Hostname(), port)
}

// SealSecret is workspace.AppConnector's sealing: without a key, the
// secret's field is what is wrong (the operator must set HUB_SECRET_KEY).
func (c *Catalog) SealSecret(secret string) ([]byte, error) {
	sealed, err := c.o.Box.Seal([]byte(secret))
	if errors.Is(err, apps.ErrNoSecretKey) {
		return nil, &workspace.InvalidError{Path: "/secret", Message: "this Hub server has no " + apps.EnvSecretKey + ", so it cannot keep secrets; ask its operator"}
	}
	return sealed, err
}

// listedTool is a tool as a listing keeps it in the database.
type listedTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"inputSchema"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
}

// listing is what a connection's tools column holds.
type listing struct {
	Tools []listedTool `json:"tools"`
	// Skipped names the tools left out, with why.
	Skipped []string `json:"skipped,omitempty"`
}

// Listing is the outcome of listing a server, for the refresh route.
type Listing struct {
	Tools   []ListedTool
	Skipped []string
	// Failure is why the listing failed ("": it worked).
	Failure string
}

// ListedTool is one tool of a listing as people see it.
type ListedTool struct {
	Name     string // Hub's name for it (mcp_…)
	Tool     string // the server's name
	Title    string
	ReadOnly bool
}

// Refresh lists the server's tools now and keeps the listing on the
// connection. A failure is no error but the listing's Failure.
func (c *Catalog) Refresh(ctx context.Context, spaceID, connID string) (Listing, error) {
	t, err := c.ws.AppTarget(ctx, spaceID, connID)
	if err != nil {
		return Listing{}, err
	}
	return c.refresh(ctx, t)
}

func (c *Catalog) refresh(ctx context.Context, t workspace.AppTarget) (Listing, error) {
	l, failure := c.list(ctx, t)
	// Microseconds, as every engine keeps them, so the definitions built
	// here are found again by the listing's time read back.
	at := c.o.Now().Truncate(time.Microsecond)
	raw := ""
	if failure == "" {
		c.build(t.Connection, at, &l) // a schema that cannot be used is named in the listing
		b2, err := json.Marshal(l)
		if err != nil {
			return Listing{}, fmt.Errorf("listing of %s: %w", t.ID, err)
		}
		raw = string(b2)
	}
	if err := c.ws.SaveAppTools(ctx, t.SpaceID, t.ID, raw, at, failure); err != nil {
		return Listing{}, err
	}
	out := Listing{Failure: failure, Skipped: l.Skipped}
	for _, lt := range l.Tools {
		out.Tools = append(out.Tools, ListedTool{Name: ToolName(t.ID, lt.Name), Tool: lt.Name, Title: lt.Title, ReadOnly: lt.ReadOnly})
	}
	if failure == "" && t.Enabled {
		c.watchTools(t)
	}
	return out, nil
}

// list asks the server for its tools, page by page, within the timeout.
func (c *Catalog) list(ctx context.Context, t workspace.AppTarget) (listing, string) {
	secret, err := c.secret(t)
	if err != nil {
		return listing{}, err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	cs, err := c.session(ctx, t.URL, secret, nil)
	if err != nil {
		return listing{}, reason(ctx, err, c.o.Timeout)
	}
	defer closeSession(cs)
	var l listing
	seen := map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return listing{}, reason(ctx, err, c.o.Timeout)
		}
		if len(l.Tools) == MaxTools {
			l.Skipped = append(l.Skipped, fmt.Sprintf("tools after the first %d", MaxTools))
			break
		}
		lt, why := keep(tool)
		switch {
		case why != "":
			l.Skipped = append(l.Skipped, fmt.Sprintf("%.64s: %s", tool.Name, why))
		case seen[ToolName(t.ID, lt.Name)]:
			l.Skipped = append(l.Skipped, fmt.Sprintf("%.64s: listed twice", tool.Name))
		default:
			seen[ToolName(t.ID, lt.Name)] = true
			l.Tools = append(l.Tools, lt)
		}
	}
	return l, ""
}

// schemaError is a compile error's first line, bounded.
func schemaError(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return shorten(msg, 160)
}

// shorten cuts s to n characters, the last an ellipsis.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// keep checks one listed tool: a name, an object schema of bounded size.
func keep(t *mcp.Tool) (listedTool, string) {
	if t == nil || t.Name == "" || len(t.Name) > 128 || workspace.BadText(t.Name) {
		return listedTool{}, "no usable name"
	}
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return listedTool{}, "its input schema cannot be read"
	}
	if len(schema) > MaxSchemaBytes {
		return listedTool{}, fmt.Sprintf("its input schema is larger than %d KiB", MaxSchemaBytes>>10)
	}
	var obj map[string]any
	if json.Unmarshal(schema, &obj) != nil || obj["type"] != "object" {
		return listedTool{}, "its input schema is not an object schema"
	}
	desc := shorten(workspace.CleanText(t.Description), MaxDescription)
	title, ro := t.Title, false
	if a := t.Annotations; a != nil {
		title, ro = cmp.Or(title, a.Title), a.ReadOnlyHint
	}
	return listedTool{Name: t.Name, Title: workspace.CleanText(title), Description: desc, Schema: schema, ReadOnly: ro}, ""
}

// secret opens the connection's sealed secret ("" when it has none).
func (c *Catalog) secret(t workspace.AppTarget) (string, error) {
	if len(t.Secret) == 0 {
		return "", nil
	}
	b, err := c.o.Box.Open(t.Secret)
	if err != nil {
		return "", fmt.Errorf("its secret does not open with this server's %s; connect it again: %w", apps.EnvSecretKey, err)
	}
	return string(b), nil
}

// App is a connected MCP server with the tools a turn may offer.
type App struct {
	workspace.Connection
	Tools []*tools.Definition
}

// Apps returns the space's enabled MCP servers that work, each with its
// tools. With refresh, every listing older than the TTL is listed again
// first, at once (racing turns share one listing of a server); one that
// fails is left out. A server already failing is listed again in the
// background, at most every RetryFailing: no turn waits for it.
func (c *Catalog) Apps(ctx context.Context, spaceID string, refresh bool) ([]App, error) {
	if c == nil {
		return nil, nil
	}
	targets, err := c.ws.AppTargets(ctx, spaceID, workspace.ConnectionMCP)
	if err != nil {
		return nil, err
	}
	if refresh {
		var wg sync.WaitGroup
		for i := range targets {
			t := &targets[i]
			switch {
			case !t.Enabled:
				continue
			case t.Failure != "":
				c.retryInBackground(*t)
				continue
			case t.ToolsListedAt != nil && c.o.Now().Sub(*t.ToolsListedAt) < c.o.TTL:
				continue
			}
			wg.Go(func() {
				if _, err, _ := c.flight.Do(t.ID, func() (any, error) { return c.refresh(ctx, *t) }); err != nil {
					slog.WarnContext(ctx, "listing an MCP server's tools failed", "connection", t.ID, "error", err)
					return
				}
				if fresh, err := c.ws.AppTarget(ctx, spaceID, t.ID); err == nil {
					*t = fresh
				}
			})
		}
		wg.Wait()
	}
	return c.listed(ctx, targets, func(t workspace.AppTarget) bool { return t.Enabled && t.Failure == "" })
}

// listed returns the listed targets keep lets through, each with its tools.
func (c *Catalog) listed(ctx context.Context, targets []workspace.AppTarget, keep func(workspace.AppTarget) bool) ([]App, error) {
	var out []App
	for _, t := range targets {
		if t.ToolsListedAt == nil || !keep(t) {
			continue
		}
		defs, err := c.definitions(ctx, t)
		if err != nil {
			return nil, err
		}
		out = append(out, App{Connection: t.Connection, Tools: defs})
	}
	return out, nil
}

// retryInBackground lists a failing server again, unless this process did
// within RetryFailing or the catalog is closed; nothing waits for it.
func (c *Catalog) retryInBackground(t workspace.AppTarget) {
	c.mu.Lock()
	last, tried := c.retried[t.ID]
	if c.closed || tried && c.o.Now().Sub(last) < c.o.RetryFailing {
		c.mu.Unlock()
		return
	}
	c.retried[t.ID] = c.o.Now()
	c.holds.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.holds.Done()
		if _, err, _ := c.flight.Do(t.ID, func() (any, error) { return c.refresh(c.bg, t) }); err != nil {
			slog.Warn("listing a failing MCP server's tools again failed", "connection", t.ID, "error", err)
		}
	}()
}

// Definitions returns the tools of every listed MCP server of the space,
// failing and switched-off ones included, from the kept listings: what a
// call runs against, so a write held while its server worked is still
// found at Apply (and fails or is refused when it runs).
func (c *Catalog) Definitions(ctx context.Context, spaceID string) ([]*tools.Definition, error) {
	if c == nil {
		return nil, nil
	}
	targets, err := c.ws.AppTargets(ctx, spaceID, workspace.ConnectionMCP)
	if err != nil {
		return nil, err
	}
	listed, err := c.listed(ctx, targets, func(workspace.AppTarget) bool { return true })
	var out []*tools.Definition
	for _, a := range listed {
		out = append(out, a.Tools...)
	}
	return out, err
}

// definitions builds (once per listing) the tools of a connection, reading
// the listing only when this process has not built it.
func (c *Catalog) definitions(ctx context.Context, t workspace.AppTarget) ([]*tools.Definition, error) {
	c.mu.Lock()
	b, ok := c.built[t.ID]
	c.mu.Unlock()
	if ok && b.listedAt.Equal(*t.ToolsListedAt) {
		return b.defs, nil
	}
	raw, at := t.Tools, t.ToolsListedAt
	if raw == "" {
		var err error
		if raw, at, err = c.ws.AppTools(ctx, t.SpaceID, t.ID); err != nil {
			var gone *workspace.NotFoundError
			if errors.As(err, &gone) {
				return nil, nil // removed since the targets were read
			}
			return nil, err
		}
		if at == nil {
			return nil, nil
		}
	}
	var l listing
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		return nil, nil
	}
	return c.build(t.Connection, *at, &l).defs, nil
}
