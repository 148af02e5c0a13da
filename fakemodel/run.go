package fakemodel

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Run serves a script on addr until ctx ends: the `hub fakemodel`
// subcommand. scriptPath "" runs DefaultScript; addr "" picks a free
// loopback port. It prints the base URL as an OPENAI_BASE_URL= line, so a
// shell or a test can read where to point Hub.
func Run(ctx context.Context, addr, scriptPath string, out io.Writer) error {
	script := DefaultScript()
	if scriptPath != "" {
		var err error
		if script, err = LoadScript(scriptPath); err != nil {
			return err
		}
	}
	s := New(script)
	baseURL, err := s.Start(addr)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(out, "fakemodel: scripted test double, not a real model; script %q, %d rules\nOPENAI_BASE_URL=%s\n",
		script.Name(), len(script.rules), baseURL); err != nil {
		return fmt.Errorf("fakemodel: %w", errors.Join(err, s.Close()))
	}
	<-ctx.Done()
	return s.Close()
}
