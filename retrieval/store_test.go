package retrieval_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/files"
	"hub/retrieval"
	"hub/workspace"
)

type fixture struct {
	ctx             context.Context
	ws              *workspace.Service
	files           *files.Service
	store           *retrieval.Store
	spaceID, owner  string
	viewer, outside string
}

func newFixture(t *testing.T, url string) fixture {
	t.Helper()
	db := dbtest.Open(t, url)
	ws := workspace.NewService(db)
	blobs, err := files.NewDirStore(t.TempDir())
	require.NoError(t, err)
	f := fixture{ctx: context.Background(), ws: ws, files: files.NewService(db, ws, blobs, 0), store: retrieval.NewStore(db)}
	f.spaceID, f.owner, err = ws.EnsureMember(f.ctx, "Team", "Olga Owner", workspace.RoleOwner)
	require.NoError(t, err)
	_, f.viewer, err = ws.EnsureMember(f.ctx, "Team", "Vera Viewer", workspace.RoleViewer)
	require.NoError(t, err)
	_, f.outside, err = ws.EnsureMember(f.ctx, "Elsewhere", "Otto Outsider", workspace.RoleOwner)
	require.NoError(t, err)
	return f
}

func chunk(ord int, section, text string) retrieval.Chunk {
	sum := sha256.Sum256([]byte(section + "\n" + text))
	return retrieval.Chunk{Ord: ord, Section: section, Text: text, Hash: hex.EncodeToString(sum[:])}
}

// indexed uploads a file and publishes chunks as its passages.
func (f fixture) indexed(t *testing.T, name string, chunks ...retrieval.Chunk) files.File {
	t.Helper()
	file, err := f.files.Upload(f.ctx, workspace.Actor{PersonID: f.owner, Via: workspace.ViaREST}, f.spaceID, name,
		strings.NewReader("some text"))
	require.NoError(t, err)
	v, err := f.store.Begin(f.ctx, file.ID, file.IndexGen)
	require.NoError(t, err)
	_, err = f.store.SaveDrafts(f.ctx, v, chunks, "")
	require.NoError(t, err)
	require.NoError(t, f.store.Publish(f.ctx, file.ID, file.IndexGen))
	return file
}

func (f fixture) search(t *testing.T, personID, text string, exact bool) []retrieval.Hit {
	t.Helper()
	res, err := f.store.Search(f.ctx, personID, f.spaceID, retrieval.Query{Text: text, Exact: exact})
	require.NoError(t, err)
	return res.Hits
}

func titles(hits []retrieval.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Title
	}
	return out
}

// Drafts are never found; publishing makes a version searchable at once,
// for every member, best match first; a later version replaces the
// earlier in one step; a version started for an older generation is stale.
func TestPublishMakesAVersionSearchable(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		f := newFixture(t, url)
		file, err := f.files.Upload(f.ctx, workspace.Actor{PersonID: f.owner, Via: workspace.ViaREST}, f.spaceID, "contract.md",
			strings.NewReader("# Contract"))
		require.NoError(t, err)
		require.Equal(t, retrieval.StatusQueued, file.IndexStatus)
		v, err := f.store.Begin(f.ctx, file.ID, file.IndexGen)
		require.NoError(t, err)
		_, err = f.store.SaveDrafts(f.ctx, v, []retrieval.Chunk{
			chunk(0, "Penalties", "A late delivery costs the supplier 2% of the order value per week."),
			chunk(1, "Termination", "Either party may end the agreement with 90 days' notice."),
		}, "")
		require.NoError(t, err)
		require.Empty(t, f.search(t, f.owner, "late delivery penalties", false), "drafts are not searchable")

		require.NoError(t, f.store.Publish(f.ctx, file.ID, file.IndexGen))
		hits := f.search(t, f.viewer, "what does a late delivery cost?", false)
		require.NotEmpty(t, hits)
		require.Equal(t, "Penalties", hits[0].Section)
		require.Equal(t, 1, hits[0].Rank)
		got, err := f.files.Get(f.ctx, workspace.Actor{PersonID: f.owner, Via: workspace.ViaREST}, f.spaceID, file.ID)
		require.NoError(t, err)
		require.Equal(t, retrieval.StatusIndexed, got.IndexStatus)

		_, err = f.store.Begin(f.ctx, file.ID, file.IndexGen+1)
		require.ErrorIs(t, err, retrieval.ErrStale, "no such version")
		require.ErrorIs(t, f.store.Publish(f.ctx, file.ID, file.IndexGen+1), retrieval.ErrStale)

		// The passage a citation names reads back; a wrong key does not.
		p, err := f.store.FilePassage(f.ctx, f.viewer, f.spaceID, file.ID, retrieval.PassageKey(hits[0].Hash))
		require.NoError(t, err)
		require.Contains(t, p.Body, "2% of the order value")
		_, err = f.store.FilePassage(f.ctx, f.outside, f.spaceID, file.ID, retrieval.PassageKey(hits[0].Hash))
		require.ErrorIs(t, err, retrieval.ErrNoPassage, "not for a person outside the space")
		_, err = f.store.FilePassage(f.ctx, f.viewer, f.spaceID, file.ID, "zz%")
		require.ErrorIs(t, err, retrieval.ErrNoPassage)
	})
}

// The membership is inside the query: a removed member finds nothing the
// moment the removal commits, and a person of another space finds nothing.
func TestSearchFindsOnlyWhatThePersonCanOpenNow(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		f := newFixture(t, url)
		f.indexed(t, "launch.md", chunk(0, "Lisbon", "The Lisbon launch is planned for the spring."))
		require.Len(t, f.search(t, f.viewer, "lisbon launch", false), 1)
		require.Empty(t, f.search(t, f.outside, "lisbon launch", false))

		require.NoError(t, f.ws.RemoveMember(f.ctx, f.owner, f.spaceID, f.viewer))
		require.Empty(t, f.search(t, f.viewer, "lisbon launch", false))
		require.Empty(t, f.search(t, f.viewer, "Lisbon launch", true))
	})
}

// Tasks and projects are searchable as they change, in the change's own
// transaction: created, renamed (the old words no longer find it), deleted.
func TestRecordsAreSearchableAsTheyChange(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		f := newFixture(t, url)
		owner := workspace.Actor{PersonID: f.owner, Via: workspace.ViaREST}
		tasks, err := f.ws.CreateTasks(f.ctx, owner, f.spaceID, "", []workspace.NewTask{{Title: "Book the riverside venue"}})
		require.NoError(t, err)
		hits := f.search(t, f.owner, "venue", false)
		require.Equal(t, []string{"Book the riverside venue"}, titles(hits))
		require.Equal(t, "task", hits[0].Source)
		require.Equal(t, tasks[0].ID, hits[0].SourceID)

		title := "Order the stage"
		_, err = f.ws.UpdateTask(f.ctx, owner, f.spaceID, tasks[0].ID, workspace.TaskPatch{Title: &title})
		require.NoError(t, err)
		require.Empty(t, f.search(t, f.owner, "venue", false))
		require.Equal(t, []string{"Order the stage"}, titles(f.search(t, f.owner, "stage", false)))

		_, err = f.ws.DeleteTask(f.ctx, owner, f.spaceID, tasks[0].ID)
		require.NoError(t, err)
		require.Empty(t, f.search(t, f.owner, "stage", false))
	})
}

// An exact search finds a reference number as written, whatever its case
// and spacing, and not a passage that only shares its words apart.
func TestExactSearchFindsTheTextAsItIs(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		f := newFixture(t, url)
		f.indexed(t, "invoices.md",
			chunk(0, "Q1", "Invoice INV-2024-0042 settles the first quarter."),
			chunk(1, "Q2", "The 2024 invoices: INV 0042 was cancelled in 2024."))
		hits := f.search(t, f.owner, "inv-2024-0042", true)
		require.Len(t, hits, 1)
		require.Equal(t, "Q1", hits[0].Section)
		require.Len(t, f.search(t, f.owner, "the  first QUARTER", true), 1)
		require.Empty(t, f.search(t, f.owner, "second quarter", true))
	})
}

func TestTermsDropCommonWords(t *testing.T) {
	require.Equal(t, []string{"penalties", "late", "delivery"}, retrieval.Terms("What are the penalties for a late delivery?"))
	require.Equal(t, []string{"what", "is", "it"}, retrieval.Terms("what is it"), "only common words: kept")
	require.Empty(t, retrieval.Terms(" ?! "))
}

func TestExcerptStartsNearTheMatch(t *testing.T) {
	body := strings.Repeat("Filler words here. ", 100) + "\n\nThe penalty is 2% a week.\n\n" + strings.Repeat("More. ", 100)
	got := retrieval.Excerpt(body, []string{"penalty"}, 200)
	require.True(t, strings.HasPrefix(got, "…The penalty is 2%"), got)
	require.LessOrEqual(t, len([]rune(got)), 200)
	require.Equal(t, "short", retrieval.Excerpt("short", []string{"x"}, 200))
}

// A word most of the space's passages have is left out of a topic search
// that has rarer words, by counts that follow each published version, and
// a search of only such words still answers (from the space's newest
// passages that have them all).
func TestCommonWordsFollowThePublishedVersion(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		f := newFixture(t, url)
		file, err := f.files.Upload(f.ctx, workspace.Actor{PersonID: f.owner, Via: workspace.ViaREST}, f.spaceID, "log.md",
			strings.NewReader("# Log"))
		require.NoError(t, err)
		publish := func(gen int, text func(i int) string) {
			t.Helper()
			chunks := make([]retrieval.Chunk, 2100)
			for i := range chunks {
				chunks[i] = chunk(i, fmt.Sprintf("Entry %d", i), text(i))
			}
			v, err := f.store.Begin(f.ctx, file.ID, gen)
			require.NoError(t, err)
			_, err = f.store.SaveDrafts(f.ctx, v, chunks, "")
			require.NoError(t, err)
			require.NoError(t, f.store.Publish(f.ctx, file.ID, gen))
		}
		publish(file.IndexGen, func(i int) string {
			if i == 7 {
				return "The harbour crane was inspected."
			}
			return fmt.Sprintf("The harbour log, day %d.", i)
		})
		res, err := f.store.Search(f.ctx, f.owner, f.spaceID, retrieval.Query{Text: "harbour crane"})
		require.NoError(t, err)
		require.Equal(t, []string{"crane"}, res.Terms, "harbour is in every passage")
		require.Equal(t, "Entry 7", res.Hits[0].Section)
		res, err = f.store.Search(f.ctx, f.owner, f.spaceID, retrieval.Query{Text: "harbour log"})
		require.NoError(t, err)
		require.Equal(t, []string{"harbour", "log"}, res.Terms, "only common words: each is required")
		require.Len(t, res.Hits, retrieval.DefaultLimit)

		v, err := f.store.Requeue(f.ctx, file.ID)
		require.NoError(t, err)
		publish(v.Gen, func(i int) string {
			if i%500 == 0 {
				return "The harbour crane was inspected."
			}
			return fmt.Sprintf("A quiet day, number %d.", i)
		})
		res, err = f.store.Search(f.ctx, f.owner, f.spaceID, retrieval.Query{Text: "harbour crane"})
		require.NoError(t, err)
		require.Equal(t, []string{"harbour", "crane"}, res.Terms, "harbour is rare in the new version")
		require.Len(t, res.Hits, 5)
	})
}

// Indexing a file's next version writes only what changed: a passage the
// version still has keeps its row (its id) and its link, a changed one is
// new, a removed one is gone, and the file's new name reaches every
// passage.
func TestANewVersionKeepsItsUnchangedPassages(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		f := newFixture(t, url)
		file := f.indexed(t, "plan.md",
			chunk(0, "Venue", "The launch is at the riverside hall."),
			chunk(1, "Catering", "Lunch comes from the harbour kitchen."),
			chunk(2, "Budget", "The budget is 40,000 euros."))
		before := map[string]retrieval.Hit{}
		for _, q := range []string{"riverside hall", "harbour kitchen", "budget euros"} {
			hits := f.search(t, f.owner, q, false)
			require.NotEmpty(t, hits, q)
			before[q] = hits[0]
		}

		v, err := f.store.Requeue(f.ctx, file.ID)
		require.NoError(t, err)
		v.Name = "plan-v2.md"
		_, err = f.store.SaveDrafts(f.ctx, v, []retrieval.Chunk{
			chunk(0, "Catering", "Lunch comes from the harbour kitchen."),
			chunk(1, "Venue", "The launch is at the riverside hall."),
			chunk(2, "Budget", "The budget is 45,000 euros."),
		}, "")
		require.NoError(t, err)
		require.Equal(t, before["riverside hall"].PassageID, f.search(t, f.owner, "riverside hall", false)[0].PassageID,
			"before publishing, the published version is what is found")
		require.NoError(t, f.store.Publish(f.ctx, file.ID, v.Gen))

		for _, q := range []string{"riverside hall", "harbour kitchen"} {
			hits := f.search(t, f.owner, q, false)
			require.Len(t, hits, 1, q)
			require.Equal(t, before[q].PassageID, hits[0].PassageID, "%s: unchanged, not written again", q)
			require.Equal(t, before[q].Link(), hits[0].Link())
			require.Equal(t, "plan-v2.md", hits[0].Title)
		}
		hits := f.search(t, f.owner, "budget euros", false)
		require.Len(t, hits, 1)
		require.NotEqual(t, before["budget euros"].PassageID, hits[0].PassageID)
		require.Contains(t, hits[0].Body, "45,000")
		require.Empty(t, f.search(t, f.owner, "40,000", true), "the changed passage's old text is gone")
	})
}
