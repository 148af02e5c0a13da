package temporal

import (
	"fmt"
	"net"
	"strconv"
)

// freePort returns a TCP port on host that nothing listens on right now: the
// server wants port numbers in its configuration, not ":0".
//
// Linux may hand a just-released ephemeral port out again at once; closing a
// connection to it from the listening side first leaves it in TIME_WAIT,
// which keeps it from the next bind(":0") while we can still bind it
// explicitly (Go sets SO_REUSEADDR on listeners).
func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("pick a free port on %s: %w", host, err)
	}
	defer l.Close()
	addr := l.Addr().(*net.TCPAddr)

	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			err = c.Close()
		}
		accepted <- err
	}()
	c, err := net.Dial("tcp", addr.String())
	if err == nil {
		defer c.Close() // after the listening side closed
		err = <-accepted
	}
	if err != nil {
		return 0, fmt.Errorf("pick a free port on %s: %w", host, err)
	}
	return addr.Port, nil
}

// resolveAddr splits "host:port" and replaces port 0 with a free port.
func resolveAddr(addr string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("address %q: %w", addr, err)
	}
	// The server binds to IP addresses only (a name fails to parse).
	if host == "" || host == "localhost" {
		host = "127.0.0.1"
	}
	if net.ParseIP(host) == nil {
		return "", 0, fmt.Errorf("address %q: host must be an IP address or localhost", addr)
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("address %q: bad port", addr)
	}
	if port == 0 {
		if port, err = freePort(host); err != nil {
			return "", 0, err
		}
	}
	return host, port, nil
}

// dialHost is the host to reach a listener on host at: loopback for one
// that listens on every interface.
func dialHost(host string) string {
	if net.ParseIP(host).IsUnspecified() {
		return "127.0.0.1"
	}
	return host
}

// checkPortFree fails if something already listens on host:port.
func checkPortFree(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}
