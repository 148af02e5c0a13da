package e2e

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hub"
	"hub/hubtest"
	"hub/models"
)

// streamTokenOf is the token in a streamUrl.
func streamTokenOf(t *testing.T, streamURL string) string {
	t.Helper()
	u, err := url.Parse(streamURL)
	require.NoError(t, err)
	tok := u.Query().Get("streamToken")
	require.NotEmpty(t, tok, "%s", streamURL)
	return tok
}

// unauthenticated asserts a 401 with the structured error body.
func unauthenticated(t *testing.T, r hubtest.Response) {
	t.Helper()
	require.Equal(t, http.StatusUnauthorized, r.Status, "%s", r.Body)
	require.Equal(t, "unauthenticated", r.JSON(t)["error"].(map[string]any)["code"])
}

// A turn's stream URL takes only that turn's stream token: a full token
// there is refused (it would be a bearer token leaked into logs and
// history), though the Authorization header still takes one; another
// turn's token and an expired one are refused too, and expired tokens are
// deleted.
func TestStreamURLTakesOnlyItsStreamToken(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	conv := s.Conversation(t)
	first := s.Ask(t, conv, "one")
	s.Stream(t, first.StreamURL, 0, 0)
	second := s.Ask(t, conv, "two")
	s.Stream(t, second.StreamURL, 0, 0)
	path := "/api/assistant/turns/" + first.TurnID + "/stream"

	unauthenticated(t, s.Do(t, "", "GET", path+"?streamToken="+url.QueryEscape(s.Token), nil))
	r := s.Do(t, s.Token, "GET", path, nil)
	require.Equal(t, http.StatusOK, r.Status, "the header takes the full token")
	require.Contains(t, string(r.Body), "event: done")
	unauthenticated(t, s.Do(t, "", "GET", path+"?streamToken="+streamTokenOf(t, second.StreamURL), nil))
	require.Equal(t, http.StatusOK, s.Do(t, "", "GET", first.StreamURL, nil).Status)

	// Expired: refused, then deleted by the sweep; the other stays.
	ctx := context.Background()
	scope := hub.StreamScope(first.TurnID)
	require.NoError(t, s.DB.WithContext(ctx).Model(&models.APIToken{}).Where("scope = ?", scope).
		Update("expires_at", time.Now().Add(-time.Second).UTC()).Error)
	unauthenticated(t, s.Do(t, "", "GET", first.StreamURL, nil))
	n, err := s.Hub.DeleteExpiredTokens(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	var left []models.APIToken
	require.NoError(t, s.DB.WithContext(ctx).Where("scope LIKE ?", "stream:%").Find(&left).Error)
	require.Len(t, left, 1)
	require.Equal(t, hub.StreamScope(second.TurnID), left[0].Scope)
	unauthenticated(t, s.Do(t, "", "GET", first.StreamURL, nil))
	require.Equal(t, http.StatusOK, s.Do(t, "", "GET", second.StreamURL, nil).Status)
}

// The activity stream gets a token of its own for a URL, so a browser's
// native EventSource can follow it; the URL takes nothing else.
func TestActivityStreamTakesItsOwnStreamToken(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(slowText)})
	before := time.Now()
	r := s.Do(t, s.Token, "POST", "/api/agent/stream-token", nil)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	var got struct {
		StreamToken string    `json:"streamToken"`
		StreamURL   string    `json:"streamUrl"`
		ExpiresAt   time.Time `json:"expiresAt"`
	}
	r.Decode(t, &got)
	require.Equal(t, "/api/agent/stream?streamToken="+got.StreamToken, got.StreamURL)
	require.WithinRange(t, got.ExpiresAt, before.Add(2*time.Hour-time.Minute), time.Now().Add(2*time.Hour+time.Minute))

	// No header: what an EventSource sends.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	es := s.OpenEvents(ctx, t, s.URL+got.StreamURL, "", "")
	t.Cleanup(es.Close)
	snap := next(t, es)
	require.Equal(t, true, snap.Data["snapshot"])
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	a := activity(t, next(t, es))
	require.Equal(t, st.TurnID, a["id"])

	// The token reads that stream only, and only in the URL it was made for.
	unauthenticated(t, s.Do(t, got.StreamToken, "GET", "/api/spaces", nil))
	unauthenticated(t, s.Do(t, got.StreamToken, "POST", "/api/agent/stream-token", nil))
	unauthenticated(t, s.Do(t, "", "POST", "/api/agent/stream-token", nil))
	unauthenticated(t, s.Do(t, "", "GET", "/api/assistant/turns/"+st.TurnID+"/stream?streamToken="+got.StreamToken, nil))
	// A full token or a turn's stream token is not one for this URL.
	unauthenticated(t, s.Do(t, "", "GET", "/api/agent/stream?streamToken="+url.QueryEscape(s.Token), nil))
	unauthenticated(t, s.Do(t, "", "GET", "/api/agent/stream?streamToken="+streamTokenOf(t, st.StreamURL), nil))
	// The header still takes the full token (TestActivityStream* use it).
	hdr := s.OpenEvents(ctx, t, s.URL+"/api/agent/stream", s.Token, "")
	require.Equal(t, true, next(t, hdr).Data["snapshot"])
	hdr.Close()

	// Another person's token reads that person's stream: none of this work.
	other, _ := s.Member(t, "Team", "Sam Other", hub.RoleEditor)
	r = s.Do(t, other, "POST", "/api/agent/stream-token", nil)
	require.Equal(t, http.StatusCreated, r.Status)
	theirs := s.OpenEvents(ctx, t, s.URL+r.JSON(t)["streamUrl"].(string), "", "")
	t.Cleanup(theirs.Close)
	require.Empty(t, next(t, theirs).Data["activities"])

	// Expired: refused, and swept.
	require.NoError(t, s.DB.WithContext(ctx).Model(&models.APIToken{}).Where("scope = ?", hub.ActivityScope).
		Update("expires_at", time.Now().Add(-time.Second).UTC()).Error)
	unauthenticated(t, s.Do(t, "", "GET", got.StreamURL, nil))
	n, err := s.Hub.DeleteExpiredTokens(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "both activity tokens")
	s.AwaitStatus(t, st.TurnID)
}
