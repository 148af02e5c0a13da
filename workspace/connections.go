package workspace

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// The kinds of connected app: a URL Hub posts JSON updates to, and an MCP
// server whose tools the assistant may use (package mcpapps).
const (
	ConnectionWebhook = "webhook"
	ConnectionMCP     = "mcp"
)

// KindConnection is the ref kind of a connected app.
const KindConnection = "connection"

// Limits of a connection's fields.
const (
	MaxConnectionName = 100  // characters; a name is a label in a list and a preview
	MaxConnectionURL  = 2048 // bytes; what browsers and most servers accept in a URL
	// MaxConnections bounds the fan-out of a turn's start, which lists every
	// MCP server whose listing is old at once.
	MaxConnections = 100
	// MaxConnectionSecret bounds an MCP server's bearer secret, in bytes.
	MaxConnectionSecret = 4096
)

// ConnectionKinds are the kinds a connection may have.
var ConnectionKinds = []string{ConnectionWebhook, ConnectionMCP}

// AppConnector is what adding an MCP server needs beyond the database: the
// private-network check of its address (apps.Guard) and the sealing of its
// secret (apps.SecretBox). Without one, MCP servers cannot be added.
type AppConnector interface {
	// CheckURL says why an address may not be reached (nil: it may).
	CheckURL(ctx context.Context, rawURL string) error
	// SealSecret encrypts a secret for the database.
	SealSecret(secret string) ([]byte, error)
}

// SetAppConnector sets the connector MCP connections are checked and
// sealed with; call it once, before serving.
func (s *Service) SetAppConnector(c AppConnector) { s.shared.connector = c }

// Connection is a connected app of a space. URL is empty for a person who
// may not manage the space's connections (see ListConnections).
type Connection struct {
	ID      string
	SpaceID string
	OwnerID string
	Kind    string
	Name    string
	URL     string
	Enabled bool
	// Failure is why Hub's last post to the app failed ("": it worked, or
	// nothing was sent yet).
	Failure string
	// PublicOnly marks an MCP server connected without a secret: what it
	// serves, it serves to anyone ("public data only").
	PublicOnly bool
	// HasSecret tells an owner or editor that an MCP server has a bearer
	// secret stored (never read back).
	HasSecret bool
	// ToolsListedAt is when an MCP server's tools were last listed (nil:
	// never, or not shown to this person).
	ToolsListedAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// NewConnection is what adding a connected app sends ("" Kind: a webhook).
type NewConnection struct {
	Kind string
	Name string
	URL  string
	// Secret is an MCP server's optional bearer secret.
	Secret string
}

// ConnectionRef names a connected app to people and the model: its name,
// with its kind as detail; never its URL.
func ConnectionRef(c Connection) Ref {
	detail := c.Kind
	if !c.Enabled {
		detail += ", switched off"
	}
	return Ref{Kind: KindConnection, ID: c.ID, Label: c.Name, Detail: detail}
}

// managesConnections tells whether a role may add and remove connected apps
// and read their URLs: a webhook URL is itself a credential.
func managesConnections(r Role) bool { return r == RoleOwner || r == RoleEditor }

// toConnection converts a row for a person with the given role.
func toConnection(r storage.Connection, role Role) Connection {
	c := Connection{ID: r.ID, SpaceID: r.SpaceID, OwnerID: r.OwnerID, Kind: r.Kind, Name: r.Name,
		Enabled: r.Enabled, Failure: r.Failure, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		PublicOnly: r.Kind == ConnectionMCP && len(r.Secret) == 0}
	if managesConnections(role) {
		c.URL = r.URL
		c.HasSecret = len(r.Secret) > 0
		c.ToolsListedAt = r.ToolsListedAt
	}
	return c
}

// CreateConnection adds a connected app to the space; only an owner or an
// editor may. The URL is an absolute http(s) URL without a user name or
// password. A name already used in the space, in any case, is a conflict.
func (s *Service) CreateConnection(ctx context.Context, actor Actor, spaceID string, in NewConnection) (Connection, error) {
	role, err := s.Access(ctx, actor.PersonID, spaceID)
	if err != nil {
		return Connection{}, err
	}
	if !managesConnections(role) {
		return Connection{}, fmt.Errorf("%s may not add connected apps to this space: %w", WithArticle(string(role)), ErrForbidden)
	}
	kind := strings.TrimSpace(in.Kind)
	if kind == "" {
		kind = ConnectionWebhook
	}
	if !slices.Contains(ConnectionKinds, kind) {
		return Connection{}, invalid("/kind", "kind must be one of %s, not %q", strings.Join(ConnectionKinds, ", "), in.Kind)
	}
	name, err := requiredLine("/name", "a name", "a name is required", in.Name, MaxConnectionName)
	if err != nil {
		return Connection{}, err
	}
	u, err := checkConnectionURL(in.URL)
	if err != nil {
		return Connection{}, err
	}
	sealed, err := s.checkMCP(ctx, kind, u, in.Secret)
	if err != nil {
		return Connection{}, err
	}
	now := s.now()
	r := storage.Connection{ID: storage.NewID("conn"), SpaceID: spaceID, OwnerID: actor.PersonID, Kind: kind,
		Name: name, URL: u, Enabled: true, Secret: sealed, CreatedAt: now, UpdatedAt: now}
	full := func(n int) error {
		return fmt.Errorf("this space has %d connected apps, the most a space keeps; remove one first: %w", n, ErrConflict)
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		err := insertNamed(ctx, s, "create connection", &storage.Space{}, spaceID, "space_id", MaxConnections,
			full, nameTaken, &r, name)
		if err != nil {
			return err
		}
		return s.audit(ctx, actor, spaceID, AuditConnection, AuditCreated, r.ID, fmt.Sprintf("Connected “%s” (%s)", name, kind), connectionAudit(r))
	})
	if err != nil {
		return Connection{}, err
	}
	return toConnection(r, role), nil
}

// insertNamed inserts row, named name, under the row lock of its owner
// (owner, whose id ownerColumn holds), so racing inserts count one after the
// other: full refuses an owner with max rows, taken a name it has in any
// case; what names the insert in other errors.
func insertNamed[R any](ctx context.Context, s *Service, what string, owner any, ownerID, ownerColumn string, max int,
	full func(n int) error, taken func(name string) error, row *R, name string) error {
	return s.InTx(ctx, func(ctx context.Context) error {
		if err := s.lockRow(ctx, owner, ownerID); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		var names []string
		if err := s.q(ctx).Model(new(R)).Where(ownerColumn+" = ?", ownerID).Pluck("name", &names).Error; err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if len(names) >= max {
			return full(len(names))
		}
		for _, n := range names {
			if strings.EqualFold(n, name) {
				return taken(name)
			}
		}
		if err := s.q(ctx).Create(row).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) { // the unique index decides a race
				return taken(name)
			}
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	})
}

// updateNamed writes cols to the owner's row id of kind R at version prev,
// unless another of the owner's rows has its new name in any case (taken;
// the unique index decides a race) or the row changed since it was read.
func updateNamed[R any](ctx context.Context, s *Service, kind, ownerColumn, ownerID, id, name string, prev int,
	taken func(name string) error, cols map[string]any) error {
	what := "update " + kind + " " + id
	return s.InTx(ctx, func(ctx context.Context) error {
		var n int64
		if err := s.q(ctx).Model(new(R)).Where(ownerColumn+" = ? AND id <> ? AND lower(name) = lower(?)", ownerID, id, name).
			Count(&n).Error; err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if n > 0 {
			return taken(name)
		}
		res := s.q(ctx).Model(new(R)).Where("id = ? AND "+ownerColumn+" = ? AND version = ?", id, ownerID, prev).Updates(cols)
		err := guarded(res, what, changedMeanwhile(kind, name, "updated"))
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return taken(name)
		}
		return err
	})
}

func nameTaken(name string) error {
	return fmt.Errorf("a connected app named %q is already in this space: %w", name, ErrConflict)
}

// checkConnectionURL accepts an absolute http(s) URL with a host, trimmed.
func checkConnectionURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", invalid("/url", "a URL is required")
	}
	if err := CheckText("/url", raw); err != nil {
		return "", err
	}
	if len(raw) > MaxConnectionURL {
		return "", invalid("/url", "a URL has at most %d characters", MaxConnectionURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", invalid("/url", "the URL cannot be read: write it as https://host/path")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", invalid("/url", "the URL must start with https:// or http://")
	}
	if u.Hostname() == "" {
		return "", invalid("/url", "the URL must name a host")
	}
	if u.User != nil {
		return "", invalid("/url", "the URL must not carry a user name or password")
	}
	if strings.ContainsAny(raw, " \t\r\n") {
		return "", invalid("/url", "the URL must not contain spaces")
	}
	return raw, nil
}

// ListConnections returns the space's connected apps by name. A guest gets
// none; a viewer gets no URLs (managesConnections).
func (s *Service) ListConnections(ctx context.Context, actor Actor, spaceID string) ([]Connection, error) {
	role, err := s.Access(ctx, actor.PersonID, spaceID)
	if err != nil {
		return nil, err
	}
	if role == RoleGuest {
		return []Connection{}, nil // a guest sees none
	}
	var rows []storage.Connection
	if err := s.q(ctx).Where("space_id = ?", spaceID).Order("name, id").Limit(MaxListLimit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list connections: %w", err)
	}
	return mapRows(rows, func(r storage.Connection) Connection { return toConnection(r, role) }), nil
}

// GetConnection returns one connected app of the space (none for a guest).
func (s *Service) GetConnection(ctx context.Context, actor Actor, spaceID, id string) (Connection, error) {
	r, role, err := s.connectionRow(ctx, actor, spaceID, id)
	if err != nil {
		return Connection{}, err
	}
	return toConnection(r, role), nil
}

// DeleteConnection removes a connected app; only an owner or an editor may.
// A guest, who sees no connections, gets ErrNotFound.
func (s *Service) DeleteConnection(ctx context.Context, actor Actor, spaceID, id string) (Connection, error) {
	r, role, err := s.connectionRow(ctx, actor, spaceID, id)
	if err != nil {
		return Connection{}, err
	}
	if !managesConnections(role) {
		return Connection{}, fmt.Errorf("%s may not remove connected apps from this space: %w", WithArticle(string(role)), ErrForbidden)
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		res := s.q(ctx).Delete(&storage.Connection{}, "space_id = ? AND id = ?", spaceID, id)
		if res.Error != nil {
			return fmt.Errorf("delete connection %s: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return nil // removed meanwhile: that removal is the one recorded
		}
		return s.audit(ctx, actor, spaceID, AuditConnection, AuditDeleted, r.ID, fmt.Sprintf("Removed “%s” (%s)", r.Name, r.Kind), connectionAudit(r))
	})
	if err != nil {
		return Connection{}, err
	}
	return toConnection(r, role), nil
}

// connectionAudit is what the audit log keeps of a connected app: its host,
// not its URL, whose path or query may be the secret (a webhook's).
func connectionAudit(r storage.Connection) map[string]any {
	host := ""
	if u, err := url.Parse(r.URL); err == nil {
		host = u.Host
	}
	return map[string]any{"kind": r.Kind, "name": r.Name, "host": host, "secret": len(r.Secret) > 0}
}

// connectionRow reads a connected app of the space, with the actor's role.
func (s *Service) connectionRow(ctx context.Context, actor Actor, spaceID, id string) (storage.Connection, Role, error) {
	role, err := s.Access(ctx, actor.PersonID, spaceID)
	if err != nil {
		return storage.Connection{}, "", err
	}
	if role == RoleGuest {
		return storage.Connection{}, role, &NotFoundError{Kind: "connected app", ID: id}
	}
	r, err := spaceRow[storage.Connection](ctx, s, "connected app", "connection", spaceID, id)
	return r, role, err
}

// MaxConnectionFailure bounds the reason kept for a failing app.
const MaxConnectionFailure = 120

// RecordConnectionPost keeps how Hub's last post to a connected app went:
// failure says why it failed, "" that it worked. It checks no access (the
// posting tool has), and a removed app is no error.
func (s *Service) RecordConnectionPost(ctx context.Context, spaceID, id, failure string) error {
	failure = clip(CleanText(failure), MaxConnectionFailure)
	err := s.q(ctx).Model(&storage.Connection{}).Where("space_id = ? AND id = ? AND failure <> ?", spaceID, id, failure).
		Update("failure", failure).Error
	if err != nil {
		return fmt.Errorf("record post to connection %s: %w", id, err)
	}
	return nil
}
