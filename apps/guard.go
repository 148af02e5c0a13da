package apps

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// Guard is the private-network check of every outgoing connection of Hub
// to an address a person or a model chose (see the package doc). One
// guard, one allowlist: what webhooks may reach is what pages may be read
// from.
type Guard struct {
	allow allowList
}

// NewGuard returns a guard that refuses every blocked address except what
// allow lists; an entry it cannot read is an error, so a typo never
// silently opens or closes an address.
func NewGuard(allow []string) (*Guard, error) {
	a, err := parseAllowList(allow)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvAllow, err)
	}
	return &Guard{allow: a}, nil
}

// DialContext connects like net.Dialer.DialContext, refusing a blocked
// address before anything is sent; use it as an http.Transport's
// DialContext (with Proxy nil, so the check sees the real address).
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	hostAllowed := g.allow.allowsHost(addr)
	d := net.Dialer{KeepAlive: 30 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		return g.allow.checkDial(network, address, hostAllowed)
	}}
	return d.DialContext(ctx, network, addr)
}

// BlockedReason tells whether err (at any depth) is the guard's refusal,
// and says why in words.
func BlockedReason(err error) (string, bool) {
	var blocked *blockedError
	if errors.As(err, &blocked) {
		return blocked.Error(), true
	}
	return "", false
}

// CheckURL resolves a URL's host and tells whether the guard would let a
// connection reach it, so a person connecting an app hears why not at once;
// every dial is still checked again.
func (g *Guard) CheckURL(ctx context.Context, host, port string) error {
	if g.allow.allowsHost(net.JoinHostPort(host, port)) {
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return &LookupError{Host: host, Err: err}
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return fmt.Errorf("the port %q is not a number", port)
	}
	for _, a := range addrs {
		if err := g.allow.checkDial("tcp", netip.AddrPortFrom(a, uint16(p)).String(), false); err != nil {
			return err
		}
	}
	return nil
}

// Transport is the HTTP transport every outside request of Hub uses: each
// connection dialled through the guard, never through a proxy (the check
// must see the server's own address).
func (g *Guard) Transport(maxHeaderBytes int64) *http.Transport {
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxIdleConns:           16,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: maxHeaderBytes,
	}
}
