package temporal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uioptions "github.com/temporalio/ui-server/v2/server/server_options"
)

// uiServer is the Temporal UI (the ui-server `temporal server start-dev`
// serves) pointed at the embedded frontend.
type uiServer struct {
	server *uiserver.Server
	url    string
	done   chan error // the serving goroutine's result
}

// startUI serves the UI on addr and returns once it answers its health check.
func startUI(ctx context.Context, addr, frontendAddr, namespace string) (*uiServer, error) {
	host, port, err := resolveAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	// The UI server calls log.Fatal when it cannot bind: find out first.
	if err := checkPortFree(host, port); err != nil {
		return nil, fmt.Errorf("ui address %s: %w", addr, err)
	}
	srv := uiserver.NewServer(uioptions.WithConfigProvider(&uiconfig.Config{
		Host:                host,
		Port:                port,
		TemporalGRPCAddress: frontendAddr,
		EnableUI:            true,
		DefaultNamespace:    namespace,
		// Plain HTTP on loopback: else the browser drops the CSRF cookie and
		// every write action fails.
		CORS:     uiconfig.CORS{CookieInsecure: true},
		HideLogs: true,
		// No calls to the internet: `hub dev` must work offline.
		DisableNewsFetch:   true,
		NotifyOnNewVersion: false,
	}))
	u := &uiServer{
		server: srv,
		url:    "http://" + net.JoinHostPort(dialHost(host), strconv.Itoa(port)),
		done:   make(chan error, 1),
	}
	go func() { u.done <- srv.Start() }()
	if err := u.waitHealthy(ctx); err != nil {
		return nil, errors.Join(err, u.stop())
	}
	return u, nil
}

// waitHealthy polls the UI server's /healthz until it answers 200.
func (u *uiServer) waitHealthy(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: time.Second}
	defer hc.CloseIdleConnections()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.url+"/healthz", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("health check: %s", resp.Status)
		}
		select {
		case err := <-u.done:
			u.done <- err // let stop see it too
			return fmt.Errorf("ui server exited: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("ui server at %s not healthy: %w", u.url, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop closes the UI's listener and waits for its serving goroutine. The
// gRPC connection the UI server dials stays open (it keeps no handle to
// close); see docs/temporal.md.
func (u *uiServer) stop() error {
	u.server.Stop()
	select {
	case err := <-u.done:
		if err != nil {
			return fmt.Errorf("ui server: %w", err)
		}
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("ui server did not stop within 5s")
	}
}
