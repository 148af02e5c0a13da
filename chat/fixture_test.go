package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/dbtest"
	"hub/notify"
	"hub/storage"
	"hub/stream"
	"hub/workspace"
)

// fixture is a migrated database with a space where Ann and Bob are members,
// and a conversation of Ann's.
type fixture struct {
	db    *storage.DB
	store *chat.Store
	// notifier wakes the store's followers (and a bus's a test makes).
	notifier *notify.Notifier

	space, ann, bob string
	conv            chat.Conversation
}

func each(t *testing.T, fn func(t *testing.T, f *fixture)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		fn(t, newFixture(t, url))
	})
}

func newFixture(t *testing.T, url string) *fixture {
	t.Helper()
	ctx := t.Context()
	db := dbtest.Open(t, url)
	svc := workspace.NewService(db)
	n := notify.New(db)
	t.Cleanup(n.Close)
	f := &fixture{db: db, store: chat.NewStore(db, stream.NewBus(db, n)), notifier: n}
	var err error
	f.space, f.ann, err = svc.EnsureMember(ctx, "Acme", "Ann Archer", workspace.RoleOwner)
	require.NoError(t, err)
	_, f.bob, err = svc.EnsureMember(ctx, "Acme", "Bob Baker", workspace.RoleEditor)
	require.NoError(t, err)
	f.conv, err = f.store.CreateConversation(ctx, f.ann, f.space, "Planning", "")
	require.NoError(t, err)
	return f
}

// start starts a turn in Ann's conversation.
func (f *fixture) start(t *testing.T, text string) chat.Turn {
	t.Helper()
	turn, err := f.store.StartTurn(t.Context(), chat.NewTurn{ConversationID: f.conv.ID, PersonID: f.ann, Text: text})
	require.NoError(t, err)
	return turn
}

// finish ends a turn with a reply.
func (f *fixture) finish(t *testing.T, turn chat.Turn, status chat.Status, reply string) chat.Turn {
	t.Helper()
	out, err := f.store.FinishTurn(t.Context(), turn.ID, chat.Ending{Status: status, Text: reply})
	require.NoError(t, err)
	return out
}

// exchange runs a whole turn: the person's text and a done reply.
func (f *fixture) exchange(t *testing.T, text, reply string) chat.Turn {
	t.Helper()
	return f.finish(t, f.start(t, text), chat.StatusDone, reply)
}

func (f *fixture) count(t *testing.T, model any, where string, args ...any) int64 {
	t.Helper()
	var n int64
	require.NoError(t, f.db.Model(model).Where(where, args...).Count(&n).Error)
	return n
}

func texts(msgs []chat.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ": " + m.Text
	}
	return out
}
