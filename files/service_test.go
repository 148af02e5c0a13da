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

// A replace gives the file new contents under its id and queues its next
// version; the old blob goes; a refused replace changes nothing; a
// viewer cannot replace, another space's person does not find the file.
func TestReplaceKeepsTheFileAndQueuesItsNextVersion(t *testing.T) {
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
		_, viewerID, err := ws.EnsureMember(ctx, "Team", "Vera Viewer", workspace.RoleViewer)
		require.NoError(t, err)
		owner := workspace.Actor{PersonID: ownerID, Via: workspace.ViaREST}

		f, err := svc.Upload(ctx, owner, spaceID, "terms.md", strings.NewReader("# Terms\n\nPay in 30 days."))
		require.NoError(t, err)
		got, err := svc.Replace(ctx, owner, spaceID, f.ID, "terms-v2.md", strings.NewReader("# Terms\n\nPay in 14 days."))
		require.NoError(t, err)
		require.Equal(t, f.ID, got.ID)
		require.Equal(t, "terms-v2.md", got.Name)
		require.Equal(t, f.IndexGen+1, got.IndexGen)
		require.Equal(t, "queued", got.IndexStatus)
		_, data, err := svc.Read(ctx, owner, spaceID, f.ID, 100)
		require.NoError(t, err)
		require.Equal(t, "# Terms\n\nPay in 14 days.", string(data))
		require.Len(t, blobs(t, dir), 1, "the old contents are gone")

		_, err = svc.Replace(ctx, owner, spaceID, f.ID, "big.md", strings.NewReader(strings.Repeat("a", 2049)))
		require.ErrorIs(t, err, files.ErrTooLarge)
		_, err = svc.Replace(ctx, workspace.Actor{PersonID: viewerID, Via: workspace.ViaREST}, spaceID, f.ID, "v.md", strings.NewReader("x"))
		require.ErrorIs(t, err, workspace.ErrForbidden, "a viewer cannot replace")
		_, err = svc.Replace(ctx, workspace.Actor{PersonID: otherID, Via: workspace.ViaREST}, otherSpace, f.ID, "o.md", strings.NewReader("x"))
		var nf *workspace.NotFoundError
		require.True(t, errors.As(err, &nf), "another space's file is not found: %v", err)
		after, err := svc.Get(ctx, owner, spaceID, f.ID)
		require.NoError(t, err)
		require.Equal(t, got, after, "refused replaces change nothing")
		require.Len(t, blobs(t, dir), 1)

		pic, err := svc.Replace(ctx, owner, spaceID, f.ID, "scan.png", bytes.NewReader([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")))
		require.NoError(t, err)
		require.Equal(t, "failed", pic.IndexStatus, "a picture has nothing to index")
	})
}

// A summary is saved on the version it was made of: a later version has
// none, and a summary of an earlier one is refused as stale.
func TestASummaryBelongsToItsVersion(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := context.Background()
		db := dbtest.Open(t, url)
		ws := workspace.NewService(db)
		store, err := files.NewDirStore(t.TempDir())
		require.NoError(t, err)
		svc := files.NewService(db, ws, store, 2048)
		spaceID, ownerID := seed(t, ws, "Team", "Olga Owner")
		owner := workspace.Actor{PersonID: ownerID, Via: workspace.ViaREST}

		f, err := svc.Upload(ctx, owner, spaceID, "terms.md", strings.NewReader("Pay in 30 days."))
		require.NoError(t, err)
		require.Empty(t, f.Summary)
		require.Empty(t, f.Keywords)
		require.NoError(t, svc.SetSummary(ctx, f.ID, f.IndexGen, "Payment terms.", []string{"terms", "payment"}))
		got, err := svc.Get(ctx, owner, spaceID, f.ID)
		require.NoError(t, err)
		require.Equal(t, "Payment terms.", got.Summary)
		require.Equal(t, []string{"terms", "payment"}, got.Keywords)

		v2, err := svc.Replace(ctx, owner, spaceID, f.ID, "terms.md", strings.NewReader("Pay in 14 days."))
		require.NoError(t, err)
		require.Empty(t, v2.Summary, "the new version has no summary")
		require.Empty(t, v2.Keywords)
		require.ErrorIs(t, svc.SetSummary(ctx, f.ID, f.IndexGen, "Old.", nil), files.ErrStale)
		require.ErrorIs(t, svc.SetSummary(ctx, "file_nope", 1, "None.", nil), files.ErrStale)
	})
}
