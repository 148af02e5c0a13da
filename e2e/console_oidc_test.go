//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

// TestConsoleSignsInThroughTheProvider is the console's other way in, in
// a real browser (console/web/e2e/oidc.mjs): `hub dev --fake-model`
// pointed at a real OpenID Provider in this process (zitadel/oidc's op,
// its login page on loopback). The sign-in form offers "Sign in with your
// organization"; the provider's login page signs the browser in with the
// authorization-code flow and PKCE; the new person, in no space, is shown
// their id; an owner adds them, and they chat; Sign out, and a sign-in the
// provider refused says why. The token way in is TestConsoleInABrowser's.
func TestConsoleSignsInThroughTheProvider(t *testing.T) {
	t.Parallel()
	web, err := filepath.Abs("../console/web")
	require.NoError(t, err)
	node, chromium := browserTools(t, web)

	op := newOP(t)
	dir := t.TempDir()
	env := []string{"HUB_HTTP_ADDR=", "DATABASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "HUB_MODELS_FILE=", "HUB_MODELS=",
		"HUB_OIDC_ISSUER=" + op.srv.URL, "HUB_OIDC_CLIENT_ID=hub-console", "HUB_OIDC_AUDIENCE=", "HUB_OIDC_CLIENT_SECRET=", "HUB_OIDC_REDIRECT_URL="}
	dev := start(t, env, "dev", "--fake-model", "--data-dir", filepath.Join(dir, ".hub"),
		"--http-addr", "127.0.0.1:0", "--temporal-addr", "127.0.0.1:0", "--ui-addr", "")
	link := dev.await(t, devConsole)[1]
	dev.await(t, regexp.MustCompile(`Started Worker`))
	origin := link[:strings.Index(link, "/#")]
	// A public client (PKCE, no secret), as a console is.
	op.register(storage.NativeClient("hub-console", origin+"/api/session/oidc/callback"))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("e2e", "oidc.mjs"))
	cmd.Dir = web
	cmd.Env = append(os.Environ(), "HUB_CONSOLE_URL="+link, "HUB_CHROMIUM="+chromium, "HUB_OIDC_ISSUER="+op.srv.URL)
	out, err := cmd.CombinedOutput()
	t.Logf("oidc.mjs:\n%s", strings.TrimSpace(string(out)))
	require.NoError(t, err, "the browser test failed (its output above)")
	require.Contains(t, string(out), "ok  a refused sign-in says why on the sign-in form", "it ran to its end")
}

// browserTools returns node and chromium for a browser test of the console
// in web, skipping without them (unless HUB_REQUIRE_BROWSER=1, set by
// scripts/test.sh, makes that a failure).
func browserTools(t *testing.T, web string) (node, chromium string) {
	t.Helper()
	chromium = os.Getenv("HUB_CHROMIUM")
	if chromium == "" {
		chromium, _ = exec.LookPath("chromium")
	}
	node, _ = exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(web, "node_modules", "playwright-core"))
	if node == "" || chromium == "" || modErr != nil {
		msg := "the browser test needs node, chromium and console/web/node_modules (scripts/test.sh installs them)"
		if os.Getenv("HUB_REQUIRE_BROWSER") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, chromium
}
