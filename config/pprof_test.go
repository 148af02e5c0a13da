package config

import (
	"testing"
)

func TestPprofAddr(t *testing.T) {
	for in, want := range map[string]string{
		"":               "",
		"6060":           "127.0.0.1:6060",
		":6060":          "127.0.0.1:6060",
		"127.0.0.1:0":    "127.0.0.1:0",
		"0.0.0.0:6060":   "0.0.0.0:6060",
		"[::1]:6060":     "[::1]:6060",
		" 6061 ":         "127.0.0.1:6061",
		"localhost:6060": "localhost:6060",
	} {
		c, err := FromEnv(func(k string) string {
			if k == "HUB_PPROF_ADDR" {
				return in
			}
			return ""
		})
		if err != nil {
			t.Fatalf("HUB_PPROF_ADDR=%q: %v", in, err)
		}
		if c.PprofAddr != want {
			t.Errorf("HUB_PPROF_ADDR=%q: got %q, want %q", in, c.PprofAddr, want)
		}
	}
	for _, bad := range []string{"x", "host:", "99999", "a:b:c"} {
		if _, err := FromEnv(func(k string) string {
			if k == "HUB_PPROF_ADDR" {
				return bad
			}
			return ""
		}); err == nil {
			t.Errorf("HUB_PPROF_ADDR=%q: no error", bad)
		}
	}
}
