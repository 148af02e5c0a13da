//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/storage"
	"hub/workspace"
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

// getBounded is a GET that gives up after 10 seconds (a stream that should
// have been refused would otherwise hold the test until its timeout).
func getBounded(t *testing.T, s *hubtest.Stack, token, path string) hubtest.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "GET %s: %d, and the body did not end", path, resp.StatusCode)
	return hubtest.Response{Status: resp.StatusCode, Body: body, Header: resp.Header}
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

	unauthenticated(t, getBounded(t, s, "", path+"?streamToken="+url.QueryEscape(s.Token)))
	r := getBounded(t, s, s.Token, path)
	require.Equal(t, http.StatusOK, r.Status, "the header takes the full token")
	require.Contains(t, string(r.Body), "event: done")
	unauthenticated(t, getBounded(t, s, "", path+"?streamToken="+streamTokenOf(t, second.StreamURL)))
	require.Equal(t, http.StatusOK, getBounded(t, s, "", first.StreamURL).Status)

	// Expired: refused, then deleted by the sweep; the other stays.
	ctx := context.Background()
	scope := workspace.StreamScope(first.TurnID)
	require.NoError(t, s.DB.WithContext(ctx).Model(&storage.APIToken{}).Where("scope = ?", scope).
		Update("expires_at", time.Now().Add(-time.Second).UTC()).Error)
	unauthenticated(t, getBounded(t, s, "", first.StreamURL))
	s.Sweep(t, time.Now())
	var left []storage.APIToken
	require.NoError(t, s.DB.WithContext(ctx).Where("scope LIKE ?", "stream:%").Find(&left).Error)
	require.Len(t, left, 1)
	require.Equal(t, workspace.StreamScope(second.TurnID), left[0].Scope)
	unauthenticated(t, getBounded(t, s, "", first.StreamURL))
	require.Equal(t, http.StatusOK, getBounded(t, s, "", second.StreamURL).Status)
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
	unauthenticated(t, getBounded(t, s, "", "/api/assistant/turns/"+st.TurnID+"/stream?streamToken="+got.StreamToken))
	// A full token or a turn's stream token is not one for this URL.
	unauthenticated(t, getBounded(t, s, "", "/api/agent/stream?streamToken="+url.QueryEscape(s.Token)))
	unauthenticated(t, getBounded(t, s, "", "/api/agent/stream?streamToken="+streamTokenOf(t, st.StreamURL)))
	// The header still takes the full token (TestActivityStream* use it).
	hdr := s.OpenEvents(ctx, t, s.URL+"/api/agent/stream", s.Token, "")
	require.Equal(t, true, next(t, hdr).Data["snapshot"])
	hdr.Close()

	// Another person's token reads that person's stream: none of this work.
	other, _ := s.Member(t, "Team", "Sam Other", workspace.RoleEditor)
	r = s.Do(t, other, "POST", "/api/agent/stream-token", nil)
	require.Equal(t, http.StatusCreated, r.Status)
	theirs := s.OpenEvents(ctx, t, s.URL+r.JSON(t)["streamUrl"].(string), "", "")
	t.Cleanup(theirs.Close)
	require.Empty(t, next(t, theirs).Data["activities"])

	// Expired: refused, and swept.
	require.NoError(t, s.DB.WithContext(ctx).Model(&storage.APIToken{}).Where("scope = ?", workspace.ActivityScope).
		Update("expires_at", time.Now().Add(-time.Second).UTC()).Error)
	unauthenticated(t, getBounded(t, s, "", got.StreamURL))
	s.Sweep(t, time.Now())
	var left int64
	require.NoError(t, s.DB.WithContext(ctx).Model(&storage.APIToken{}).Where("scope = ?", workspace.ActivityScope).Count(&left).Error)
	require.Zero(t, left, "both activity tokens were swept")
	s.AwaitStatus(t, st.TurnID)
}
