package main

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// devPort is one address `hub dev` serves on and the flag that moves it.
type devPort struct {
	what, addr, flag string
}

// claimDevPorts checks the api, Temporal frontend and Temporal UI
// addresses before `hub dev` starts anything, and returns the api's
// listener, kept open so nothing takes the port meanwhile. The other two
// are held while checking (so two flags naming one port are caught too)
// and closed for Temporal to bind. An empty UI address means no UI.
func claimDevPorts(httpAddr, temporalAddr, uiAddr string) (net.Listener, error) {
	ports := []devPort{
		{"the Hub api", httpAddr, "--http-addr"},
		{"the Temporal frontend", temporalAddr, "--temporal-addr"},
		{"the Temporal UI", uiAddr, "--ui-addr"},
	}
	var held []net.Listener
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	for _, p := range ports {
		if p.addr == "" && p.flag == "--ui-addr" {
			continue
		}
		l, err := net.Listen("tcp", p.addr)
		if err != nil {
			return nil, p.error(err)
		}
		held = append(held, l)
	}
	api := held[0]
	held = held[1:]
	return api, nil
}

// error says which port is taken and how to move it.
func (p devPort) error(err error) error {
	host, port, splitErr := net.SplitHostPort(p.addr)
	if splitErr != nil {
		return fmt.Errorf("%s address %q: %w; give host:port with %s", p.what, p.addr, splitErr, p.flag)
	}
	example := p.flag + " " + net.JoinHostPort(host, "<port>")
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("port %s (%s, %s) is already in use: start with %s (0 picks a free port), or stop what listens there", port, p.what, p.addr, example)
	}
	return fmt.Errorf("cannot listen on %s for %s: %w; choose another address with %s", p.addr, p.what, err, example)
}
