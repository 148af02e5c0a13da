package workspace_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

func TestConnectionsCRUDAndWhoSeesWhat(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		c, err := f.svc.CreateConnection(ctx, f.owner, f.acme, workspace.NewConnection{Name: "  Team updates ", URL: " https://hooks.example.com/T1/abc "})
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(c.ID, "conn_"))
		require.Equal(t, "Team updates", c.Name)
		require.Equal(t, workspace.ConnectionWebhook, c.Kind, "an empty kind is a webhook")
		require.Equal(t, "https://hooks.example.com/T1/abc", c.URL)
		require.Equal(t, f.owner.PersonID, c.OwnerID)
		require.True(t, c.Enabled)
		_, err = f.svc.CreateConnection(ctx, f.editor, f.acme, workspace.NewConnection{Kind: "webhook", Name: "Alerts", URL: "http://alerts.example.com/in"})
		require.NoError(t, err)
		_, err = f.svc.CreateConnection(ctx, f.outsider, f.other, workspace.NewConnection{Name: "Elsewhere", URL: "https://x.example.com"})
		require.NoError(t, err)

		// Owner and editor see every connection of the space, by name, with URLs.
		for _, who := range []workspace.Actor{f.owner, f.editor} {
			list, err := f.svc.ListConnections(ctx, who, f.acme)
			require.NoError(t, err)
			require.Len(t, list, 2, "only this space's connections")
			require.Equal(t, "Alerts", list[0].Name, "by name")
			require.Equal(t, "http://alerts.example.com/in", list[0].URL)
			require.Equal(t, "Team updates", list[1].Name)
		}
		// A viewer sees names and kinds; a webhook URL is a credential.
		list, err := f.svc.ListConnections(ctx, f.viewer, f.acme)
		require.NoError(t, err)
		require.Len(t, list, 2)
		for _, c := range list {
			require.Empty(t, c.URL)
			require.Equal(t, "webhook", c.Kind)
		}
		// A guest gets none, and cannot open one by id.
		list, err = f.svc.ListConnections(ctx, f.guest, f.acme)
		require.NoError(t, err)
		require.Empty(t, list)
		require.NotNil(t, list, "an empty list, not nil")
		_, err = f.svc.GetConnection(ctx, f.guest, f.acme, c.ID)
		requireNotFound(t, err, "connected app", "")
		// Someone outside the space cannot open it either.
		_, err = f.svc.ListConnections(ctx, f.outsider, f.acme)
		requireNotFound(t, err, "space", "")
		_, err = f.svc.GetConnection(ctx, f.outsider, f.other, c.ID)
		requireNotFound(t, err, "connected app", "")

		got, err := f.svc.GetConnection(ctx, f.editor, f.acme, c.ID)
		require.NoError(t, err)
		require.Equal(t, c.Name, got.Name)
		require.Equal(t, c.URL, got.URL)
		require.Equal(t, workspace.Ref{Kind: "connection", ID: c.ID, Label: "Team updates", Detail: "webhook"}, workspace.ConnectionRef(got))
		got, err = f.svc.GetConnection(ctx, f.viewer, f.acme, c.ID)
		require.NoError(t, err)
		require.Empty(t, got.URL)

		// Removing: a viewer may not, a guest does not see it, the editor may.
		_, err = f.svc.DeleteConnection(ctx, f.viewer, f.acme, c.ID)
		require.ErrorIs(t, err, workspace.ErrForbidden)
		_, err = f.svc.DeleteConnection(ctx, f.guest, f.acme, c.ID)
		requireNotFound(t, err, "connected app", "")
		_, err = f.svc.DeleteConnection(ctx, f.outsider, f.other, c.ID)
		requireNotFound(t, err, "connected app", "")
		deleted, err := f.svc.DeleteConnection(ctx, f.editor, f.acme, c.ID)
		require.NoError(t, err)
		require.Equal(t, "Team updates", deleted.Name)
		_, err = f.svc.GetConnection(ctx, f.owner, f.acme, c.ID)
		requireNotFound(t, err, "connected app", "")
		_, err = f.svc.DeleteConnection(ctx, f.owner, f.acme, c.ID)
		requireNotFound(t, err, "connected app", "")
	})
}

func TestCreateConnectionChecksRoleAndInput(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		ok := workspace.NewConnection{Name: "Hook", URL: "https://hooks.example.com/x"}
		for _, who := range []workspace.Actor{f.viewer, f.guest} {
			_, err := f.svc.CreateConnection(ctx, who, f.acme, ok)
			require.ErrorIs(t, err, workspace.ErrForbidden, "a guest may change records but not add connected apps")
		}
		_, err := f.svc.CreateConnection(ctx, f.outsider, f.acme, ok)
		requireNotFound(t, err, "space", "")

		for _, tc := range []struct {
			name string
			in   workspace.NewConnection
			path string
		}{
			{"unknown kind", workspace.NewConnection{Kind: "slack", Name: "x", URL: "https://a.example.com"}, "/kind"},
			{"no name", workspace.NewConnection{Name: "  ", URL: "https://a.example.com"}, "/name"},
			{"long name", workspace.NewConnection{Name: strings.Repeat("ü", workspace.MaxConnectionName+1), URL: "https://a.example.com"}, "/name"},
			{"no URL", workspace.NewConnection{Name: "x"}, "/url"},
			{"ftp", workspace.NewConnection{Name: "x", URL: "ftp://a.example.com/in"}, "/url"},
			{"file", workspace.NewConnection{Name: "x", URL: "file:///etc/passwd"}, "/url"},
			{"javascript", workspace.NewConnection{Name: "x", URL: "javascript:alert(1)"}, "/url"},
			{"relative", workspace.NewConnection{Name: "x", URL: "/hooks/in"}, "/url"},
			{"no host", workspace.NewConnection{Name: "x", URL: "https:///in"}, "/url"},
			{"no scheme", workspace.NewConnection{Name: "x", URL: "hooks.example.com/in"}, "/url"},
			{"password", workspace.NewConnection{Name: "x", URL: "https://me:secret@hooks.example.com/in"}, "/url"},
			{"bad port", workspace.NewConnection{Name: "x", URL: "https://hooks.example.com:http/in"}, "/url"},
			{"space inside", workspace.NewConnection{Name: "x", URL: "https://hooks.example.com/a b"}, "/url"},
			{"too long", workspace.NewConnection{Name: "x", URL: "https://a.example.com/" + strings.Repeat("a", workspace.MaxConnectionURL)}, "/url"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.svc.CreateConnection(ctx, f.owner, f.acme, tc.in)
				requireInvalid(t, err, tc.path)
			})
		}
		list, err := f.svc.ListConnections(ctx, f.owner, f.acme)
		require.NoError(t, err)
		require.Empty(t, list, "nothing was added")

		// http is allowed too: what may be reached is decided at each send.
		_, err = f.svc.CreateConnection(ctx, f.owner, f.acme, workspace.NewConnection{Name: "Local", URL: "http://127.0.0.1:9000/hook"})
		require.NoError(t, err)
	})
}

// A name is unique in a space whatever its case; two racing creates of the
// same name end with one connection, the other a conflict.
func TestConnectionNamesAreUniquePerSpace(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		_, err := f.svc.CreateConnection(ctx, f.owner, f.acme, workspace.NewConnection{Name: "Team updates", URL: "https://a.example.com"})
		require.NoError(t, err)
		_, err = f.svc.CreateConnection(ctx, f.editor, f.acme, workspace.NewConnection{Name: "TEAM UPDATES", URL: "https://b.example.com"})
		require.ErrorIs(t, err, workspace.ErrConflict)
		require.Contains(t, err.Error(), "already")
		_, err = f.svc.CreateConnection(ctx, f.outsider, f.other, workspace.NewConnection{Name: "Team updates", URL: "https://c.example.com"})
		require.NoError(t, err, "another space may use the name")

		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = f.svc.CreateConnection(ctx, f.owner, f.acme, workspace.NewConnection{Name: "Race", URL: "https://r.example.com"})
			})
		}
		wg.Wait()
		created := 0
		for _, err := range errs {
			if err == nil {
				created++
				continue
			}
			require.ErrorIs(t, err, workspace.ErrConflict)
		}
		require.Equal(t, 1, created)
		list, err := f.svc.ListConnections(ctx, f.owner, f.acme)
		require.NoError(t, err)
		require.Len(t, list, 2)
	})
}
