package main

import (
	"strings"
	"testing"
)

// hub dev serves this machine only unless told otherwise: its owner's token
// opens everything, and the banner prints a link carrying it.
func TestDevServesThisMachineByDefault(t *testing.T) {
	for _, c := range []struct{ flag, env, want string }{
		{"", "", "127.0.0.1:8080"},
		{"", ":9000", ":9000"},
		{"0.0.0.0:8080", ":9000", "0.0.0.0:8080"},
	} {
		if got := devAPIAddr(c.flag, c.env); got != c.want {
			t.Errorf("devAPIAddr(%q, %q) = %q, want %q", c.flag, c.env, got, c.want)
		}
	}
}

// The token shows in the banner only on the start that made it; the UI
// line says it is off rather than missing from the build.
func TestDevBannerPrintsTheTokenOnce(t *testing.T) {
	b := devBanner{api: "127.0.0.1:8080", tokenFile: ".hub/dev-token", token: "hub_secret", newToken: true, temporal: "127.0.0.1:7233"}
	var first strings.Builder
	printDevBanner(&first, b)
	if got := strings.Count(first.String(), "hub_secret"); got != 1 {
		t.Errorf("a new token is printed %d times, want once (the console link):\n%s", got, first.String())
	}
	for _, want := range []string{"Console     http://127.0.0.1:8080/#token=hub_secret", "Temporal    127.0.0.1:7233", "Temporal UI off", "$(cat .hub/dev-token)"} {
		if !strings.Contains(first.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, first.String())
		}
	}
	if strings.Contains(first.String(), "no UI in this build") {
		t.Errorf("an empty --ui-addr is not a build without the UI:\n%s", first.String())
	}

	b.newToken, b.ui = false, "http://127.0.0.1:8233"
	var again strings.Builder
	printDevBanner(&again, b)
	if strings.Contains(again.String(), "hub_secret") {
		t.Errorf("a restart prints the token again:\n%s", again.String())
	}
	if !strings.Contains(again.String(), "Temporal UI http://127.0.0.1:8233") {
		t.Errorf("banner lacks the UI's address:\n%s", again.String())
	}
}
