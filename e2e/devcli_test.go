//go:build e2e

package e2e

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/hubtest"
	"hub/workspace"
)

// TestDevRefusesATakenPort: `hub dev` with any of its three ports taken
// exits at once with an error naming the port and the flag that moves it,
// before it starts or writes anything.
func TestDevRefusesATakenPort(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	addr := taken.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"--http-addr", []string{"--http-addr", addr, "--temporal-addr", "127.0.0.1:0", "--ui-addr", "127.0.0.1:0"}},
		{"--temporal-addr", []string{"--http-addr", "127.0.0.1:0", "--temporal-addr", addr, "--ui-addr", ""}},
		{"--ui-addr", []string{"--http-addr", "127.0.0.1:0", "--temporal-addr", "127.0.0.1:0", "--ui-addr", addr}},
	} {
		t.Run(strings.TrimPrefix(c.flag, "--"), func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, ".hub")
			cmd := exec.Command(hubBinary(t), append([]string{"dev", "--fake-model", "--data-dir", data}, c.args...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "DATABASE_URL=", "HUB_HTTP_ADDR=")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "hub dev must fail: %s", out)
			require.Equal(t, 1, exit.ExitCode(), "%s", out)
			require.Contains(t, string(out), "port "+port)
			require.Contains(t, string(out), "is already in use: start with "+c.flag)
			require.NotContains(t, string(out), "panic")
			require.NotContains(t, string(out), "stand-in model", "nothing started")
			_, err = os.Stat(data)
			require.ErrorIs(t, err, os.ErrNotExist, "no data dir written")
		})
	}
}

// TestTokenCreateFindsTheDevDatabase: `hub token create` run where `hub
// dev` runs, without DATABASE_URL, makes a token the running dev api
// accepts.
func TestTokenCreateFindsTheDevDatabase(t *testing.T) {
	t.Parallel()
	dir, url := sharedDev(t)

	tokenCreate := func(args ...string) (stdout, stderr string, err error) {
		cmd := exec.Command(hubBinary(t), append([]string{"token", "create"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "DATABASE_URL=")
		var e strings.Builder
		cmd.Stderr = &e
		out, err := cmd.Output()
		return string(out), e.String(), err
	}
	s := &hubtest.Stack{URL: url, HTTP: &http.Client{}}

	// Names, not ids, and nothing is made without --create: a mistyped
	// space or person is an error that says how to make it.
	_, stderr, err := tokenCreate("--space", "Garden", "--person", "Grace Hopper")
	require.Error(t, err)
	require.Contains(t, stderr, `no space is named "Garden"`)
	require.Contains(t, stderr, "--create")
	_, stderr, err = tokenCreate("--space", "Garden", "--person", "Grace Hopper", "--role", "editor")
	require.Error(t, err)
	require.Contains(t, stderr, "--role")

	out, stderr, err := tokenCreate("--create", "--space", "Garden", "--person", "Grace Hopper")
	require.NoError(t, err, "%s", stderr)
	token := strings.TrimSpace(out)
	require.Regexp(t, `^hub_[a-z0-9]+$`, token, "stdout is the token alone")
	require.Contains(t, stderr, filepath.Join(".hub", "hub.db"))
	r := s.Do(t, token, "GET", "/api/spaces", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "Garden", r.JSON(t)["spaces"].([]any)[0].(map[string]any)["name"])

	// Once they exist, a second token for the same member needs no --create;
	// another name in that space is still refused.
	out, stderr, err = tokenCreate("--space", "Garden", "--person", "Grace Hopper")
	require.NoError(t, err, "%s", stderr)
	again := strings.TrimSpace(out)
	require.NotEqual(t, token, again)
	require.Equal(t, http.StatusOK, s.Do(t, again, "GET", "/api/spaces", nil).Status)
	_, stderr, err = tokenCreate("--space", "Garden", "--person", "Grace Hoper")
	require.Error(t, err)
	require.Contains(t, stderr, `no member of "Garden" is named "Grace Hoper"`)

	// --operator: a token for the run inspector only, in no space.
	cmd := exec.Command(hubBinary(t), "token", "create", "--operator", "--person", "Olga Oncall")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DATABASE_URL=")
	raw, err := cmd.Output()
	require.NoError(t, err)
	operator := strings.TrimSpace(string(raw))
	require.Regexp(t, `^hub_[a-z0-9]+$`, operator)
	require.Equal(t, http.StatusUnauthorized, s.Do(t, operator, "GET", "/api/spaces", nil).Status)
	require.Equal(t, http.StatusNotFound, s.Do(t, operator, "GET", "/api/assistant/turns/turn_nope/inspect", nil).Status, "accepted by the inspector")
	cmd = exec.Command(hubBinary(t), "token", "create", "--operator", "--space", "Garden", "--person", "Olga Oncall")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DATABASE_URL=")
	b, err := cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(b), "leave out --space")

	// hub dev's own token is named, listed and audited like any other.
	cmd = exec.Command(hubBinary(t), "token", "list", "--person", workspace.DevOwnerName)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DATABASE_URL=")
	raw, err = cmd.Output()
	require.NoError(t, err)
	require.Regexp(t, `(?m)^tok_\S+\s+hub dev\s+`+workspace.DevOwnerName+`\s+hub_`, string(raw))
	devToken, err := os.ReadFile(filepath.Join(dir, ".hub", "dev-token"))
	require.NoError(t, err)
	owner := strings.TrimSpace(string(devToken))
	var demo string
	for _, sp := range s.Do(t, owner, "GET", "/api/spaces", nil).JSON(t)["spaces"].([]any) {
		if sp.(map[string]any)["name"] == "Demo" {
			demo = sp.(map[string]any)["id"].(string)
		}
	}
	r = s.Do(t, owner, "GET", "/api/spaces/"+demo+"/audit?limit=200", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var made int
	for _, e := range r.JSON(t)["events"].([]any) {
		ev := e.(map[string]any)
		if ev["kind"] == "token" && ev["action"] == "created" && ev["via"] == "cli" && ev["changes"].(map[string]any)["name"] == "hub dev" {
			made++
		}
	}
	require.Equal(t, 1, made, "the Demo space's log records hub dev's token once: %s", r.Body)

	// Elsewhere, without DATABASE_URL, it says what to set.
	cmd = exec.Command(hubBinary(t), "token", "create", "--create", "--space", "Garden", "--person", "Grace Hopper")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "DATABASE_URL=")
	b, err = cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(b), "DATABASE_URL is not set")
}

// TestVersionNamesTheBuild: `hub version` prints the commit the binary was
// built from (when it was built in the git checkout) and the Go version.
func TestVersionNamesTheBuild(t *testing.T) {
	t.Parallel()
	out := output(t, nil, "version")
	require.Regexp(t, `^hub \S+\n`, out+"\n")
	require.Contains(t, out, "\ngo        "+runtime.Version())
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		require.Contains(t, out, "commit    unknown")
		return
	}
	require.Regexp(t, regexp.MustCompile(`\ncommit    `+strings.TrimSpace(string(head))+`\ncommitted \d{4}-\d\d-\d\dT\S+\nmodified  (true|false)\n`), out)
	require.Regexp(t, `^hub version \S+ `+strings.TrimSpace(string(head))[:12], output(t, nil, "--version"))
}
