package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
)

// TestAClientThatHungUpIsNoServerError: a read cancelled because its client
// went away is answered 499, not logged as Hub's failure; the same error
// while the client is still there is one (500).
func TestAClientThatHungUpIsNoServerError(t *testing.T) {
	t.Parallel()
	gin.SetMode(gin.ReleaseMode)
	answer := func(ctx context.Context) int {
		w := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(w)
		c.Request = httptest.NewRequest(http.MethodGet, "/api/assistant/conversations/x/messages", nil).WithContext(ctx)
		respondError(c, fmt.Errorf("list receipts: %w", context.Canceled))
		return w.Code
	}
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	require.Equal(t, statusClientGone, answer(gone))
	require.Equal(t, http.StatusInternalServerError, answer(t.Context()))
}
