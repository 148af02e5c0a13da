package stream_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/stream"
)

// A frame costs one round trip to Postgres: the counter, the insert and
// the NOTIFY go in one statement, which is its own transaction.
func TestPublishIsOneRoundTripOnPostgres(t *testing.T) {
	t.Parallel()
	f := newFixture(t, dbtest.Postgres(t))
	turn := f.turn(t)
	proxy := countRoundTrips(t, f.url)
	bus := newBus(t, open(t, proxy.url))

	// The first frame also logs in and prepares the statement.
	_, err := bus.Publish(t.Context(), turn.ID, stream.TypeStatus, map[string]any{"status": "working"})
	require.NoError(t, err)
	const frames = 20
	before := proxy.trips.Load()
	for i := range frames {
		_, err := bus.Publish(t.Context(), turn.ID, stream.TypeText, map[string]any{"delta": i})
		require.NoError(t, err)
	}
	require.EqualValues(t, frames, proxy.trips.Load()-before, "round trips for %d frames", frames)

	// A missing turn is still an error, and costs no more.
	before = proxy.trips.Load()
	_, err = bus.Publish(t.Context(), "turn_missing", stream.TypeText, map[string]any{})
	require.ErrorContains(t, err, "no turn turn_missing")
	require.EqualValues(t, 1, proxy.trips.Load()-before)
	stored, err := f.bus.Frames(t.Context(), turn.ID, 0)
	require.NoError(t, err)
	require.Len(t, stored, frames+1, "every frame stored once")
}

// wireProxy sits between a client and Postgres and counts the client's
// round trips: a simple Query ('Q') or a Sync ('S', which ends an extended
// query) each make the client wait for the server's ReadyForQuery. The
// liveness ping database/sql sends to a connection idle for a second is
// not counted.
type wireProxy struct {
	url   string // the database URL, pointing at the proxy
	trips atomic.Int64

	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

// countRoundTrips starts a proxy to the server of databaseURL; it stops
// when the test ends, after the test's pools have closed.
func countRoundTrips(t *testing.T, databaseURL string) *wireProxy {
	t.Helper()
	u, err := url.Parse(databaseURL)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &wireProxy{ln: ln}
	server := u.Host
	u.Host = ln.Addr().String()
	p.url = u.String()
	p.wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			upstream, err := net.Dial("tcp", server)
			if err != nil {
				_ = client.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, client, upstream)
			p.mu.Unlock()
			p.wg.Go(func() {
				_, _ = io.Copy(client, upstream)
				_ = client.Close()
			})
			p.wg.Go(func() {
				_ = p.forward(upstream, client)
				_ = upstream.Close()
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// forward copies the client's messages to the server one at a time,
// counting round trips.
func (p *wireProxy) forward(server io.Writer, client io.Reader) error {
	// Before the startup message, a client may ask for TLS or GSS
	// encryption (8 bytes, no type byte); the startup message has no type
	// byte either.
	for {
		var head [8]byte
		if _, err := io.ReadFull(client, head[:]); err != nil {
			return err
		}
		size := binary.BigEndian.Uint32(head[:4])
		if size < 8 {
			return errors.New("bad startup message")
		}
		body := make([]byte, size-8)
		if _, err := io.ReadFull(client, body); err != nil {
			return err
		}
		if _, err := server.Write(append(head[:], body...)); err != nil {
			return err
		}
		code := binary.BigEndian.Uint32(head[4:])
		if code != 80877103 && code != 80877104 { // SSLRequest, GSSENCRequest
			break
		}
	}
	for {
		var head [5]byte
		if _, err := io.ReadFull(client, head[:]); err != nil {
			return err
		}
		size := binary.BigEndian.Uint32(head[1:])
		if size < 4 {
			return errors.New("bad message")
		}
		body := make([]byte, size-4)
		if _, err := io.ReadFull(client, body); err != nil {
			return err
		}
		switch {
		case head[0] == 'S':
			p.trips.Add(1)
		case head[0] == 'Q' && string(body) != "-- ping\x00":
			p.trips.Add(1)
		}
		if _, err := server.Write(append(head[:], body...)); err != nil {
			return err
		}
	}
}
