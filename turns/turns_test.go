package turns_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"hub/chat"
	"hub/dbtest"
	"hub/files"
	"hub/llm"
	"hub/notify"
	"hub/stream"
	"hub/turns"
	"hub/workspace"
)

// fixture is a space with its owner and a viewer, a conversation of the
// owner's, a task and a file there, and another space of the owner's.
type fixture struct {
	svc          *turns.Service
	chat         *chat.Store
	owner        workspace.Person
	outsider     workspace.Person
	space, other string
	conv         chat.Conversation
	taskID       string
	fileID       string
}

func newFixture(t *testing.T, url string) fixture {
	t.Helper()
	ctx := context.Background()
	db := dbtest.Open(t, url)
	ws := workspace.NewService(db)
	cat, err := llm.ParseCatalog([]byte(`{"endpoints": [{"name": "local", "baseUrl": "http://127.0.0.1:1/v1"}],
		"models": [{"id": "small", "name": "small", "endpoint": "local", "default": true},
		           {"id": "deep", "name": "deep", "endpoint": "local", "efforts": ["low", "high"]}]}`))
	require.NoError(t, err)
	ws.SetModels(cat)
	store, err := files.NewDirStore(t.TempDir())
	require.NoError(t, err)
	fs := files.NewService(db, ws, store, 1<<20)
	n := notify.New(db)
	t.Cleanup(n.Close)
	cs := chat.NewStore(db, stream.NewBus(db, n))
	space, ownerID, err := ws.EnsureMember(ctx, "Team", "Olga Owner", workspace.RoleOwner)
	require.NoError(t, err)
	other, _, err := ws.EnsureMember(ctx, "Elsewhere", "Olga Owner", workspace.RoleOwner)
	require.NoError(t, err)
	_, outsiderID, err := ws.EnsureMember(ctx, "Outside", "Otto Outsider", workspace.RoleOwner)
	require.NoError(t, err)
	owner := workspace.Actor{PersonID: ownerID, Via: workspace.ViaREST}
	conv, err := cs.CreateConversation(ctx, ownerID, space, "", "")
	require.NoError(t, err)
	tasks, err := ws.CreateTasks(ctx, owner, space, "", []workspace.NewTask{{Title: "Draft brief"}})
	require.NoError(t, err)
	f, err := fs.Upload(ctx, owner, space, "notes.txt", strings.NewReader("plain notes"))
	require.NoError(t, err)
	// A Temporal client that reaches nothing: a check that fails returns
	// before the workflow would start; one that passes fails to start it.
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return fixture{
		svc:   &turns.Service{Workspace: ws, Chat: cs, Files: fs, Temporal: c},
		chat:  cs,
		owner: workspace.Person{ID: ownerID}, outsider: workspace.Person{ID: outsiderID},
		space: space, other: other, conv: conv, taskID: tasks[0].ID, fileID: f.ID,
	}
}

// requireInvalid says err is a 400 at path.
func requireInvalid(t *testing.T, err error, path string) {
	t.Helper()
	var inv *workspace.InvalidError
	require.True(t, errors.As(err, &inv), "want invalid at %s, got %v", path, err)
	require.Equal(t, path, inv.Path, inv.Message)
}

// requireNotFound says err is a 404 at path.
func requireNotFound(t *testing.T, err error, path string) {
	t.Helper()
	var nf *workspace.NotFoundError
	require.True(t, errors.As(err, &nf), "want not found at %s, got %v", path, err)
	require.Equal(t, path, nf.Path)
}

// Every check refuses before anything is saved: the conversation has no
// message after any of them.
func TestStartChecksBeforeSaving(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, url)
		msg := func(m turns.Message) turns.Message {
			m.ConversationID = f.conv.ID
			if m.Text == "" {
				m.Text = "hello"
			}
			return m
		}
		start := func(m turns.Message) error {
			_, err := f.svc.Start(ctx, f.owner, msg(m))
			return err
		}
		// The message itself.
		_, err := f.svc.Start(ctx, f.owner, turns.Message{ConversationID: f.conv.ID, Text: "  \n "})
		requireInvalid(t, err, "/text")
		requireInvalid(t, start(turns.Message{Text: strings.Repeat("é", turns.MaxMessageChars+1)}), "/text")
		requireInvalid(t, start(turns.Message{Mentions: make([]turns.Mention, turns.MaxMentions+1)}), "/mentions")
		requireInvalid(t, start(turns.Message{Files: make([]string, turns.MaxFiles+1)}), "/files")
		requireInvalid(t, start(turns.Message{Spaces: make([]string, turns.MaxSpaces+1)}), "/spaces")
		requireInvalid(t, start(turns.Message{Context: json.RawMessage(`[1]`)}), "/context")
		requireInvalid(t, start(turns.Message{Context: json.RawMessage(`{"note": "` + strings.Repeat("x", turns.MaxContextBytes) + `"}`)}), "/context")

		// Access: someone outside the space finds no conversation.
		_, err = f.svc.Start(ctx, f.outsider, msg(turns.Message{}))
		require.ErrorIs(t, err, workspace.ErrNotFound)

		// The model and its effort, from the catalog.
		requireInvalid(t, start(turns.Message{Model: "huge"}), "/model")
		requireInvalid(t, start(turns.Message{Model: "small", Effort: "high"}), "/effort")

		// Other spaces: each one the person can open, at its place.
		requireInvalid(t, start(turns.Message{Spaces: []string{f.other, " "}}), "/spaces/1")
		requireNotFound(t, start(turns.Message{Spaces: []string{f.other, "space_nope"}}), "/spaces/1")

		// Mentions by id, at their place.
		requireNotFound(t, start(turns.Message{Mentions: []turns.Mention{{Kind: "task", ID: f.taskID}, {Kind: "task", ID: "task_nope"}}}), "/mentions/1/id")

		// Files: the space's own, at their place.
		requireNotFound(t, start(turns.Message{Files: []string{f.fileID, "file_nope"}}), "/files/1")

		msgs, err := f.chat.Messages(ctx, f.owner.ID, f.conv.ID)
		require.NoError(t, err)
		require.Empty(t, msgs, "no check saved a message")
	})
}

// A message that passes every check is saved with its mentions (by id,
// typed by name, and its files) and its turn's model; when the workflow
// cannot start, the turn is saved as an error turn and the caller told
// the service is unavailable.
func TestStartSavesTheMessageAndItsTurn(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		f := newFixture(t, url)
		_, err := f.svc.Start(ctx, f.owner, turns.Message{ConversationID: f.conv.ID, Text: "look at @task:Draft brief",
			Mentions: []turns.Mention{{Kind: "task", ID: f.taskID}}, Files: []string{f.fileID}, Spaces: []string{f.other, f.space, f.other},
			Model: "deep", Effort: "high", Context: json.RawMessage(`{"view": "tasks"}`)})
		var down *turns.UnavailableError
		require.True(t, errors.As(err, &down), "%v", err)

		msgs, err := f.chat.Messages(ctx, f.owner.ID, f.conv.ID)
		require.NoError(t, err)
		require.Len(t, msgs, 2, "the person's message and the reply that says why")
		require.Equal(t, "look at @task:Draft brief", msgs[0].Text)
		require.JSONEq(t, `{"view": "tasks"}`, msgs[0].PageContext)
		var kinds []string
		for _, m := range msgs[0].Mentions {
			kinds = append(kinds, m.Kind+":"+m.ID)
		}
		require.Equal(t, []string{"task:" + f.taskID, "file:" + f.fileID}, kinds, "the typed mention names the task already mentioned: once")
		turn, _, err := f.chat.GetTurn(ctx, msgs[1].TurnID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusError, turn.Status)
		require.Equal(t, turns.CodeUnavailable, turn.ErrorCode)
		require.Equal(t, "deep", turn.Model)
		require.Equal(t, "high", turn.Effort)
		require.Equal(t, []string{f.other}, turn.Spaces, "the conversation's own space and repeats are left out")
	})
}
