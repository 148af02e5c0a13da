//go:build e2e

package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"

	"hub/hubtest"
)

// TestProcessesOverTLSWithAPIKey runs `hub migrate`, `hub worker` and `hub
// api` against a Temporal frontend they reach only through TLS with a
// client certificate (mTLS) and an API key, as Temporal Cloud or a
// self-hosted cluster with mTLS asks: a loopback gRPC proxy in front of
// the embedded server terminates TLS with a CA made here, requires a client
// certificate that CA signed, and refuses any call without `authorization:
// Bearer <key>`. A turn runs through it. Without the CA the worker stops
// at start with an error naming the variable to set.
func TestProcessesOverTLSWithAPIKey(t *testing.T) {
	t.Parallel()
	b := startBackends(t)
	db, ts, base := b.db, b.ts, b.modelURL

	dir := t.TempDir()
	pki := newTestPKI(t, dir)
	const apiKey = "tmprl-key-3e1f"
	proxy := startTLSProxy(t, ts.FrontendHostPort(), pki, apiKey)

	tlsEnv := []string{"TEMPORAL_ADDRESS=" + proxy.addr, "TEMPORAL_NAMESPACE=" + ts.Namespace(),
		"TEMPORAL_API_KEY=" + apiKey, "TEMPORAL_TLS_SERVER_NAME=temporal.test",
		"TEMPORAL_TLS_CLIENT_CERT_PATH=" + pki.clientCert, "TEMPORAL_TLS_CLIENT_KEY_PATH=" + pki.clientKey}
	env := append([]string{"DATABASE_URL=" + db, "OPENAI_BASE_URL=" + base, "OPENAI_API_KEY=test", "HUB_HTTP_ADDR=127.0.0.1:0",
		"TEMPORAL_CONFIG_FILE=", "TEMPORAL_PROFILE="}, tlsEnv...)

	// Without the CA: the server's certificate is not trusted, and the
	// worker says which variable to set.
	out, code := runExit(t, env, "worker", "--migrate")
	require.NotZero(t, code, "%s", out)
	require.Contains(t, out, "connect to Temporal at "+proxy.addr)
	require.Contains(t, out, "TEMPORAL_TLS_SERVER_CA_CERT_PATH")
	t.Logf("without the CA:\n%s", out)

	// Without the API key: refused by the server.
	withCA := append(env, "TEMPORAL_TLS_SERVER_CA_CERT_PATH="+pki.ca)
	out, code = runExit(t, append(withCA, "TEMPORAL_API_KEY="), "worker", "--migrate")
	require.NotZero(t, code, "%s", out)
	require.Contains(t, out, "Unauthenticated")

	env = withCA
	calls0, keyed0 := proxy.counts()
	require.Zero(t, keyed0)
	require.Positive(t, calls0, "the calls without a key reached the proxy and were refused")
	require.Contains(t, output(t, env, "migrate"), "search attributes registered")
	token := output(t, env, "token", "create", "--create", "--space", "Cloud", "--person", "Ada Lovelace")
	worker := start(t, append(env, "HUB_WORKER_HTTP_ADDR=127.0.0.1:0"), "worker")
	workerHTTP := "http://" + worker.await(t, regexp.MustCompile(`hub worker metrics and health on (\S+)`))[1]
	worker.await(t, regexp.MustCompile(`hub worker polling`))
	w := &hubtest.Stack{URL: workerHTTP, HTTP: &http.Client{}}
	require.Equal(t, http.StatusOK, w.Do(t, "", "GET", "/healthz", nil).Status)
	require.Eventually(t, func() bool { return w.Do(t, "", "GET", "/readyz", nil).Status == http.StatusOK }, 30*time.Second, 50*time.Millisecond)
	api := start(t, env, "api")
	addr := api.await(t, apiLine)[1]
	s := ownerStack(t, "http://"+addr, token)
	st := s.Ask(t, s.Conversation(t), "add a task called Rotate the certificates")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	// The worker's listener shows the SDK's metrics (its worker's, over
	// TLS) and Hub's own; the api's /metrics its client's.
	var metrics string
	require.Eventually(t, func() bool { // the SDK counts a workflow's end just after its last task
		metrics = string(w.Do(t, "", "GET", "/metrics", nil).Body)
		return strings.Contains(metrics, `temporal_workflow_completed_total{`)
	}, 30*time.Second, 100*time.Millisecond, "no temporal_workflow_completed_total on the worker's /metrics")
	for _, series := range []string{`temporal_activity_execution_latency_seconds_bucket{activity_type="CallModel"`, "hub_model_calls_total{", "go_goroutines "} {
		require.True(t, strings.Contains(metrics, series), "no %s on the worker's /metrics", series)
	}
	require.True(t, strings.Contains(string(s.Do(t, "", "GET", "/metrics", nil).Body), `temporal_request_total{`), "no temporal_request_total on the api's /metrics")

	calls, keyed := proxy.counts()
	require.Greater(t, calls, calls0)
	require.Equal(t, calls-calls0, keyed-keyed0, "every call through the proxy carried the API key")
}

// runExit runs a hub subcommand to its end and returns its output and exit
// code.
func runExit(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(hubBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir()
	done := make(chan struct{})
	var out []byte
	var err error
	go func() {
		defer close(done)
		out, err = cmd.CombinedOutput()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("hub %v still running after a minute:\n%s", args, out)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

// testPKI is a CA and a server and a client certificate it signed, as PEM
// files.
type testPKI struct {
	ca, clientCert, clientKey string
	server                    tls.Certificate
	pool                      *x509.CertPool
}

func newTestPKI(t *testing.T, dir string) testPKI {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hub test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, dns []string) ([]byte, []byte) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn}, DNSNames: dns,
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		keyDER, err := x509.MarshalECPrivateKey(key)
		require.NoError(t, err)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	}
	p := testPKI{ca: filepath.Join(dir, "ca.pem"), clientCert: filepath.Join(dir, "client.pem"), clientKey: filepath.Join(dir, "client.key"),
		pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	require.NoError(t, os.WriteFile(p.ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600))
	certPEM, keyPEM := issue(2, "temporal.test", x509.ExtKeyUsageServerAuth, []string{"temporal.test"})
	p.server, err = tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	certPEM, keyPEM = issue(3, "hub", x509.ExtKeyUsageClientAuth, nil)
	require.NoError(t, os.WriteFile(p.clientCert, certPEM, 0o600))
	require.NoError(t, os.WriteFile(p.clientKey, keyPEM, 0o600))
	return p
}

// tlsProxy is a gRPC proxy on loopback: TLS with a client certificate in
// front, every call checked for the API key, then passed as it is to a
// plain-text frontend.
type tlsProxy struct {
	addr         string
	mu           sync.Mutex
	calls, keyed int
}

func (p *tlsProxy) counts() (int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls, p.keyed
}

func startTLSProxy(t *testing.T, backend string, pki testPKI, apiKey string) *tlsProxy {
	t.Helper()
	conn, err := grpc.NewClient(backend, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{})))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	p := &tlsProxy{}
	creds := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{pki.server}, ClientCAs: pki.pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12})
	srv := grpc.NewServer(grpc.Creds(creds), grpc.ForceServerCodec(rawCodec{}),
		grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
			md, _ := metadata.FromIncomingContext(ss.Context())
			ok := slicesEqual(md.Get("authorization"), []string{"Bearer " + apiKey})
			p.mu.Lock()
			p.calls++
			if ok {
				p.keyed++
			}
			p.mu.Unlock()
			if !ok {
				return grpcstatus.Error(codes.Unauthenticated, "no valid API key")
			}
			return forward(ss, conn, md)
		}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	p.addr = ln.Addr().String()
	return p
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// forward passes one call, of any shape, to the backend and its answer
// back: messages both ways, then headers, trailers and status.
func forward(ss grpc.ServerStream, conn *grpc.ClientConn, md metadata.MD) error {
	method, _ := grpc.MethodFromServerStream(ss)
	ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(ss.Context(), md.Copy()))
	defer cancel()
	cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
	if err != nil {
		return err
	}
	go func() {
		for {
			var m []byte
			if err := ss.RecvMsg(&m); err != nil {
				if errors.Is(err, io.EOF) {
					_ = cs.CloseSend()
				} else {
					cancel()
				}
				return
			}
			if err := cs.SendMsg(&m); err != nil {
				return
			}
		}
	}()
	first := true
	for {
		var m []byte
		err := cs.RecvMsg(&m)
		if first {
			if h, herr := cs.Header(); herr == nil {
				_ = ss.SendHeader(h)
			}
			first = false
		}
		if err != nil {
			ss.SetTrailer(cs.Trailer())
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := ss.SendMsg(&m); err != nil {
			return err
		}
	}
}

// rawCodec passes messages through as bytes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }
