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
)

var (
	devConsole   = regexp.MustCompile(`Console\s+(http://\S+/#token=\S+)`)
	devFakeModel = regexp.MustCompile(`Scripted stand-in model \(not a real model\) at (\S+)`)
)

// TestConsoleInABrowser runs the web console end to end in a real browser
// (console/web/e2e/console.mjs: playwright-core driving Debian's chromium)
// against `hub dev --fake-model` started as a process: signed in from the
// banner's link; ask → stream → tool rows → Undo; preview → Apply → Undo →
// Redo; the @-menu; "Thinking…" counting seconds; Stop mid-stream; a second
// tab's top bar following and its Stop all; Retry on an error turn; reload
// (chips and receipts drawn again); axe-core with no serious violations;
// the main controls reached by Tab; deleting a conversation.
//
// It needs node, console/web/node_modules (npm ci) and chromium, which
// scripts/test.sh installs; without them it skips, unless
// HUB_REQUIRE_BROWSER=1 (set by scripts/test.sh) makes that a failure.
// HUB_SCREENSHOTS=dir writes a picture of each state (docs/console holds
// them), HUB_CONSOLE_METRICS=file the figures of docs/benchmarks.md.
//
// Not parallel: its waits are for a person's pace (a 4.5 s first token to
// see the seconds count), and it should not share the CPU with the other
// end-to-end tests while it measures the time to the first character.
func TestConsoleInABrowser(t *testing.T) {
	web, err := filepath.Abs("../console/web")
	require.NoError(t, err)
	chromium := os.Getenv("HUB_CHROMIUM")
	if chromium == "" {
		chromium, _ = exec.LookPath("chromium")
	}
	node, _ := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(web, "node_modules", "playwright-core"))
	if node == "" || chromium == "" || modErr != nil {
		msg := "the browser test needs node, chromium and console/web/node_modules (scripts/test.sh installs them)"
		if os.Getenv("HUB_REQUIRE_BROWSER") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}

	dir := t.TempDir()
	env := []string{"HUB_HTTP_ADDR=", "DATABASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
	dev := start(t, env, "dev", "--fake-model", "--data-dir", filepath.Join(dir, ".hub"),
		"--http-addr", "127.0.0.1:0", "--temporal-addr", "127.0.0.1:0", "--ui-addr", "")
	model := dev.await(t, devFakeModel)[1]
	link := dev.await(t, devConsole)[1]
	dev.await(t, regexp.MustCompile(`Started Worker`))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("e2e", "console.mjs"))
	cmd.Dir = web
	cmd.Env = append(os.Environ(), "HUB_CONSOLE_URL="+link, "HUB_FAKEMODEL_URL="+model, "HUB_CHROMIUM="+chromium,
		"HUB_METRICS="+os.Getenv("HUB_CONSOLE_METRICS"))
	out, err := cmd.CombinedOutput()
	t.Logf("console.mjs:\n%s", strings.TrimSpace(string(out)))
	require.NoError(t, err, "the browser test failed (its output above)")
	require.Contains(t, string(out), "ok  a conversation is deleted from the list", "it ran to its end")
}
