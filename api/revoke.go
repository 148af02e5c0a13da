package api

import (
	"context"
	"log/slog"
	"time"
)

// credentialRecheck is how often an open stream rechecks the token it was
// opened with (docs/decisions.md, "A revoked token's open streams").
const credentialRecheck = 2 * time.Second

// untilRevoked is a channel that closes when also closes (nil: never) or
// when the token rootTokenID (workspace.Person.RootTokenID; "": none) is
// revoked or expires, checked every credentialRecheck until ctx ends.
func (s *Server) untilRevoked(ctx context.Context, rootTokenID string, also <-chan struct{}) <-chan struct{} {
	if rootTokenID == "" {
		return also
	}
	out := make(chan struct{})
	go func() {
		t := time.NewTicker(credentialRecheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-also:
				close(out)
				return
			case <-t.C:
				alive, err := s.Workspace.TokenAlive(ctx, rootTokenID)
				if err != nil {
					// A failed read keeps the stream: the next tick asks again.
					if ctx.Err() == nil {
						slog.WarnContext(ctx, "recheck stream token", "error", err)
					}
					continue
				}
				if !alive {
					close(out)
					return
				}
			}
		}
	}()
	return out
}
