package files_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/files"
	"hub/workspace"
)

// The size and type limits refuse a file before anything is stored, on
// both engines; a file of another space is not found.
func TestUploadLimitsStoreNothing(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := context.Background()
		db := dbtest.Open(t, url)
		ws := workspace.NewService(db)
		dir := t.TempDir()
		store, err := files.NewDirStore(dir)
		require.NoError(t, err)
		svc := files.NewService(db, ws, store, 2048)
		spaceID, ownerID := seed(t, ws, "Team", "Olga Owner")
		otherSpace, otherID := seed(t, ws, "Elsewhere", "Otto Outsider")
		owner := workspace.Actor{PersonID: ownerID, Via: workspace.ViaREST}
		other := workspace.Actor{PersonID: otherID, Via: workspace.ViaREST}

		_, err = svc.Upload(ctx, owner, spaceID, "big.txt", strings.NewReader(strings.Repeat("a", 2049)))
		require.ErrorIs(t, err, files.ErrTooLarge)
		_, err = svc.Upload(ctx, owner, spaceID, "archive.zip", strings.NewReader("PK\x03\x04\x14\x00\x06\x00"))
		require.ErrorIs(t, err, files.ErrUnsupportedType)
		require.ErrorContains(t, err, "Word documents (.docx)")
		_, err = svc.Upload(ctx, owner, spaceID, "a.txt", bytes.NewReader(append([]byte(strings.Repeat("a", 600)), 0xff, 0xfe)))
		require.ErrorIs(t, err, files.ErrUnsupportedType, "text past the sniffed head must be UTF-8 too")
		_, err = svc.Upload(ctx, owner, spaceID, "", strings.NewReader("x"))
		var inv *workspace.InvalidError
		require.True(t, errors.As(err, &inv), "%v", err)
		list, err := svc.List(ctx, owner, spaceID)
		require.NoError(t, err)
		require.Empty(t, list)
		require.Empty(t, blobs(t, dir))

		f, err := svc.Upload(ctx, owner, spaceID, `C:\Users\olga\notes.txt`, strings.NewReader(strings.Repeat("a", 2048)))
		require.NoError(t, err)
		require.Equal(t, "notes.txt", f.Name, "a path's last element is the name")
		require.EqualValues(t, 2048, f.Size)

		_, err = svc.Get(ctx, other, otherSpace, f.ID)
		var nf *workspace.NotFoundError
		require.True(t, errors.As(err, &nf), "another space's file is not found: %v", err)
		_, err = svc.Get(ctx, other, spaceID, f.ID)
		require.True(t, errors.As(err, &nf), "a space the person cannot open: %v", err)
		_, err = svc.Resolve(ctx, other, otherSpace, []string{f.ID})
		require.True(t, errors.As(err, &nf))
		require.Equal(t, "/files/0", nf.Path)

		_, data, err := svc.Read(ctx, owner, spaceID, f.ID, 10)
		require.NoError(t, err)
		require.Len(t, data, 10)
		require.NoError(t, svc.Delete(ctx, owner, spaceID, f.ID))
		require.Empty(t, blobs(t, dir))
		require.True(t, errors.As(svc.Delete(ctx, owner, spaceID, f.ID), &nf))

		page, err := svc.Upload(ctx, owner, spaceID, "page.html", strings.NewReader("<html><script>x</script>"))
		require.NoError(t, err)
		require.Equal(t, "text/html", page.ContentType)
		require.NoError(t, svc.Delete(ctx, owner, spaceID, page.ID))

		// Without a store nothing can be attached, and lists still work.
		none := files.NewService(db, ws, nil, 0)
		require.EqualValues(t, files.DefaultMaxBytes, none.MaxBytes())
		_, err = none.Upload(ctx, owner, spaceID, "a.txt", strings.NewReader("x"))
		require.ErrorIs(t, err, files.ErrNoStore)
		list, err = none.List(ctx, owner, spaceID)
		require.NoError(t, err)
		require.Empty(t, list)
	})
}

func seed(t *testing.T, ws *workspace.Service, space, person string) (spaceID, personID string) {
	t.Helper()
	s, p, err := ws.EnsureMember(context.Background(), space, person, workspace.RoleOwner)
	require.NoError(t, err)
	return s, p
}
