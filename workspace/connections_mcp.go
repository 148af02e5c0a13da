package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"hub/storage"
)

// checkMCP checks a connection's address, which must be one Hub may reach,
// and seals an MCP connection's optional secret (other kinds take none). A
// webhook whose host does not resolve (yet) is kept, since Hub checks it
// again at every post; an MCP server's is refused, since Hub lists its
// tools now.
func (s *Service) checkMCP(ctx context.Context, kind, rawURL, secret string) ([]byte, error) {
	if kind != ConnectionMCP {
		if secret != "" {
			return nil, invalid("/secret", "only an MCP server (kind mcp) takes a secret")
		}
		if c := s.shared.connector; c != nil {
			var notFound interface{ HostNotFound() bool }
			if err := c.CheckURL(ctx, rawURL); err != nil && !(errors.As(err, &notFound) && notFound.HostNotFound()) {
				return nil, invalid("/url", "Hub does not post to this address: %v", err)
			}
		}
		return nil, nil
	}
	c := s.shared.connector
	if c == nil {
		return nil, invalid("/kind", "MCP servers cannot be connected on this Hub server")
	}
	if err := c.CheckURL(ctx, rawURL); err != nil {
		return nil, invalid("/url", "Hub does not connect to this address: %v", err)
	}
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return nil, nil
	}
	if len(secret) > MaxConnectionSecret || BadText(secret) || strings.ContainsAny(secret, "\r\n") {
		return nil, invalid("/secret", "a secret is one line of at most %d bytes", MaxConnectionSecret)
	}
	sealed, err := c.SealSecret(secret)
	var bad *InvalidError
	if errors.As(err, &bad) {
		return nil, bad // no key to seal with: the operator's to set
	}
	if err != nil {
		return nil, fmt.Errorf("seal the connection's secret: %w", err)
	}
	return sealed, nil
}

// AppTarget is a connected app as Hub itself reaches it (package mcpapps),
// never shown to anyone: its URL, sealed secret and cached tool listing.
type AppTarget struct {
	Connection
	URL           string
	Secret        []byte
	Tools         string
	ToolsListedAt *time.Time
}

func toTarget(r storage.Connection) AppTarget {
	return AppTarget{Connection: toConnection(r, RoleOwner), URL: r.URL, Secret: r.Secret, Tools: r.Tools, ToolsListedAt: r.ToolsListedAt}
}

// AppTargets returns the space's connected apps of a kind, by name, for Hub
// to reach, without their tool listings (Tools is empty). It checks no
// access: the caller has.
func (s *Service) AppTargets(ctx context.Context, spaceID, kind string) ([]AppTarget, error) {
	var rows []storage.Connection
	// Without the listings (up to 500 tools of 8 KiB schemas each): this
	// runs on every model and tool call of a space.
	if err := s.q(ctx).Omit("tools").Where("space_id = ? AND kind = ?", spaceID, kind).Order("name, id").Limit(MaxListLimit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list %s connections: %w", kind, err)
	}
	return mapRows(rows, toTarget), nil
}

// AppTools returns an app's kept tool listing and when it was listed.
func (s *Service) AppTools(ctx context.Context, spaceID, id string) (string, *time.Time, error) {
	q := s.q(ctx).Select("tools", "tools_listed_at").Where("space_id = ? AND id = ?", spaceID, id)
	r, err := takeOne[storage.Connection](q, &NotFoundError{Kind: "connected app", ID: id}, "get the tools of connection "+id)
	if err != nil {
		return "", nil, err
	}
	return r.Tools, r.ToolsListedAt, nil
}

// AppTarget returns one connected app for Hub to reach; it checks no access.
func (s *Service) AppTarget(ctx context.Context, spaceID, id string) (AppTarget, error) {
	q := s.q(ctx).Where("space_id = ? AND id = ?", spaceID, id)
	r, err := takeOne[storage.Connection](q, &NotFoundError{Kind: "connected app", ID: id}, "get connection "+id)
	if err != nil {
		return AppTarget{}, err
	}
	return toTarget(r), nil
}

// CanRefreshConnection checks that the person may refresh a connected app's
// tools (an owner or an editor) and that it is an MCP server of the space.
func (s *Service) CanRefreshConnection(ctx context.Context, actor Actor, spaceID, id string) error {
	r, role, err := s.connectionRow(ctx, actor, spaceID, id)
	if err != nil {
		return err
	}
	if !managesConnections(role) {
		return fmt.Errorf("%s may not refresh connected apps: %w", WithArticle(string(role)), ErrForbidden)
	}
	if r.Kind != ConnectionMCP {
		return fmt.Errorf("%s is %s, which has no tools to list: %w", r.Name, WithArticle(r.Kind), ErrConflict)
	}
	return nil
}

// SaveAppTools keeps an MCP server's listing and when it was listed when the
// listing worked (failure ""), else only why it failed (the last good
// listing is kept, but a failing app's tools are not offered). A removed
// app is no error.
func (s *Service) SaveAppTools(ctx context.Context, spaceID, id, tools string, at time.Time, failure string) error {
	failure = clip(CleanText(failure), MaxConnectionFailure)
	updates := map[string]any{"failure": failure}
	if failure == "" {
		updates["tools"], updates["tools_listed_at"] = tools, at
	}
	if err := s.q(ctx).Model(&storage.Connection{}).Where("space_id = ? AND id = ?", spaceID, id).Updates(updates).Error; err != nil {
		return fmt.Errorf("save tools of connection %s: %w", id, err)
	}
	return nil
}
