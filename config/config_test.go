package config_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLogFromEnv(t *testing.T) {
	l, err := config.LogFromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, config.Log{Level: slog.LevelInfo}, l, "text at info by default")
	l, err = config.LogFromEnv(env(map[string]string{"HUB_LOG_FORMAT": "JSON", "HUB_LOG_LEVEL": "debug"}))
	require.NoError(t, err)
	require.Equal(t, config.Log{JSON: true, Level: slog.LevelDebug}, l)
	for k, v := range map[string]string{"HUB_LOG_FORMAT": "logfmt", "HUB_LOG_LEVEL": "verbose"} {
		_, err := config.LogFromEnv(env(map[string]string{k: v}))
		require.ErrorContains(t, err, k, "a wrong value is refused, naming the variable")
	}
	_, err = config.FromEnv(env(map[string]string{"HUB_LOG_LEVEL": "loud"}))
	require.ErrorContains(t, err, "HUB_LOG_LEVEL")
}

// The handler writes JSON lines at the level asked for, and never the
// value of an attribute whose key names a secret.
func TestLogHandlerRedactsSecretKeys(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(config.Log{JSON: true, Level: slog.LevelInfo}.Handler(&buf))
	log.Debug("not written")
	log.Info("request", "route", "/api/spaces", "Authorization", "Bearer hub_s3cret", "streamToken", "st_s3cret",
		slog.Group("conn", "api_key", "k_s3cret", "secret", "m_s3cret"), "token", "t_s3cret", "status", 200)
	out := buf.String()
	require.NotContains(t, out, "not written")
	require.NotContains(t, out, "s3cret")
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &line), out)
	require.Equal(t, "/api/spaces", line["route"])
	require.Equal(t, "[redacted]", line["Authorization"])
	require.EqualValues(t, 200, line["status"])
}

func TestTemporalFromEnvDefaults(t *testing.T) {
	c, err := config.FromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:7233", c.Temporal.Options.HostPort)
	require.Equal(t, "default", c.Temporal.Options.Namespace)
	require.Nil(t, c.Temporal.Options.ConnectionOptions.TLS, "plain text without TLS settings")
	require.Nil(t, c.Temporal.Options.Credentials)
	require.False(t, c.Migrate)
	require.Equal(t, "hub", c.TaskQueue)
	c, err = config.FromEnv(env(map[string]string{"HUB_TASK_QUEUE": " hub-blue "}))
	require.NoError(t, err)
	require.Equal(t, "hub-blue", c.TaskQueue, "HUB_TASK_QUEUE names the queue")
}

// An API key turns TLS on and is sent as credentials; the TLS variables
// load the certificates; a wrong boolean or a missing file is refused.
func TestTemporalFromEnvTLSAndAPIKey(t *testing.T) {
	c, err := config.FromEnv(env(map[string]string{"TEMPORAL_ADDRESS": "ns.acct.tmprl.cloud:7233", "TEMPORAL_NAMESPACE": "ns.acct",
		"TEMPORAL_API_KEY": "key-123"}))
	require.NoError(t, err)
	require.Equal(t, "ns.acct.tmprl.cloud:7233", c.Temporal.Options.HostPort)
	require.Equal(t, "ns.acct", c.TemporalNamespace)
	require.NotNil(t, c.Temporal.Options.ConnectionOptions.TLS, "an API key means TLS")
	require.NotNil(t, c.Temporal.Options.Credentials)
	require.True(t, c.Temporal.APIKey)
	var buf bytes.Buffer
	slog.New(config.Log{}.Handler(&buf)).Info("config", "config", c)
	require.NotContains(t, buf.String(), "key-123", "the config's log value leaves the key out")
	require.Contains(t, buf.String(), "temporalAPIKey=true")

	c, err = config.FromEnv(env(map[string]string{"TEMPORAL_API_KEY": "key-123", "TEMPORAL_TLS": "false"}))
	require.NoError(t, err)
	require.True(t, c.Temporal.Options.ConnectionOptions.TLSDisabled, "TEMPORAL_TLS=false keeps plain text with a key")

	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, newCA(t), 0o600))
	c, err = config.FromEnv(env(map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": ca, "TEMPORAL_TLS_SERVER_NAME": "temporal.internal"}))
	require.NoError(t, err)
	tls := c.Temporal.Options.ConnectionOptions.TLS
	require.NotNil(t, tls)
	require.NotNil(t, tls.RootCAs)
	require.Equal(t, "temporal.internal", tls.ServerName)

	for vars, want := range map[string]map[string]string{
		"TEMPORAL_TLS":                           {"TEMPORAL_TLS": "yes"},
		"TEMPORAL_TLS_DISABLE_HOST_VERIFICATION": {"TEMPORAL_TLS_DISABLE_HOST_VERIFICATION": "sometimes"},
		"server CA":                              {"TEMPORAL_TLS_SERVER_CA_CERT_PATH": filepath.Join(dir, "missing.pem")},
		"client cert":                            {"TEMPORAL_TLS_CLIENT_CERT_PATH": ca},
		"TEMPORAL_CONFIG_FILE":                   {"TEMPORAL_CONFIG_FILE": filepath.Join(dir, "missing.toml")},
	} {
		_, err := config.FromEnv(env(want))
		require.ErrorContains(t, err, vars)
	}
}

// A profile file gives the address, namespace, key and TLS; the variables
// win over it field by field; a profile that is not in the file is refused.
func TestTemporalFromProfileFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "temporal.toml")
	require.NoError(t, os.WriteFile(file, []byte(`
[profile.default]
address = "localhost:7233"

[profile.cloud]
address = "ns.acct.tmprl.cloud:7233"
namespace = "ns.acct"
api_key = "profile-key"
`), 0o600))
	c, err := config.FromEnv(env(map[string]string{"TEMPORAL_CONFIG_FILE": file, "TEMPORAL_PROFILE": "cloud"}))
	require.NoError(t, err)
	require.Equal(t, "ns.acct.tmprl.cloud:7233", c.TemporalAddress)
	require.Equal(t, "ns.acct", c.Temporal.Options.Namespace)
	require.True(t, c.Temporal.APIKey)
	require.NotNil(t, c.Temporal.Options.ConnectionOptions.TLS)
	require.Contains(t, c.Temporal.Source, `profile "cloud"`)

	c, err = config.FromEnv(env(map[string]string{"TEMPORAL_CONFIG_FILE": file, "TEMPORAL_PROFILE": "cloud", "TEMPORAL_ADDRESS": "127.0.0.1:17233"}))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:17233", c.Temporal.Options.HostPort, "TEMPORAL_ADDRESS wins over the profile")
	require.Equal(t, "ns.acct", c.TemporalNamespace, "the profile fills in the rest")

	c, err = config.FromEnv(env(map[string]string{"TEMPORAL_CONFIG_FILE": file}))
	require.NoError(t, err)
	require.Equal(t, "localhost:7233", c.TemporalAddress, "the default profile without TEMPORAL_PROFILE")

	_, err = config.FromEnv(env(map[string]string{"TEMPORAL_CONFIG_FILE": file, "TEMPORAL_PROFILE": "staging"}))
	require.ErrorContains(t, err, "staging")
}

func TestMigrateFromEnv(t *testing.T) {
	c, err := config.FromEnv(env(map[string]string{"HUB_MIGRATE": "1"}))
	require.NoError(t, err)
	require.True(t, c.Migrate)
	_, err = config.FromEnv(env(map[string]string{"HUB_MIGRATE": "yes please"}))
	require.ErrorContains(t, err, "HUB_MIGRATE")
}

// No proxy is trusted by default; HUB_TRUSTED_PROXIES takes IPs and
// CIDRs and refuses anything else at start.
func TestTrustedProxiesFromEnv(t *testing.T) {
	c, err := config.FromEnv(env(nil))
	require.NoError(t, err)
	require.Empty(t, c.TrustedProxies)
	c, err = config.FromEnv(env(map[string]string{"HUB_TRUSTED_PROXIES": " 10.0.0.0/8, 192.0.2.7,,::1 "}))
	require.NoError(t, err)
	require.Equal(t, []string{"10.0.0.0/8", "192.0.2.7", "::1"}, c.TrustedProxies)
	_, err = config.FromEnv(env(map[string]string{"HUB_TRUSTED_PROXIES": "10.0.0.0/8,proxy.internal"}))
	require.ErrorContains(t, err, "HUB_TRUSTED_PROXIES")
}

// newCA makes a self-signed CA certificate, PEM-encoded.
func newCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hub-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestOIDCFromEnv(t *testing.T) {
	c, err := config.FromEnv(env(nil))
	require.NoError(t, err)
	require.False(t, c.OIDC.Enabled(), "off without an issuer")
	c, err = config.FromEnv(env(map[string]string{"HUB_OIDC_ISSUER": "https://accounts.google.com", "HUB_OIDC_CLIENT_ID": " 123-abc.apps.googleusercontent.com "}))
	require.NoError(t, err)
	require.True(t, c.OIDC.Enabled())
	require.Equal(t, "123-abc.apps.googleusercontent.com", c.OIDC.Audience, "the audience is the client id by default")
	c, err = config.FromEnv(env(map[string]string{"HUB_OIDC_ISSUER": "https://tenant.auth0.com/", "HUB_OIDC_CLIENT_ID": "hub", "HUB_OIDC_AUDIENCE": "https://hub.example.com/api"}))
	require.NoError(t, err)
	require.Equal(t, "https://tenant.auth0.com/", c.OIDC.Issuer, "kept as the provider's iss, trailing slash and all")
	require.Equal(t, "https://hub.example.com/api", c.OIDC.Audience)
	require.Empty(t, c.OIDC.ClientSecret, "a public client (PKCE) by default")
	require.Empty(t, c.OIDC.RedirectURL, "derived from the request by default")
	// The console's code flow as a confidential client behind a proxy.
	c, err = config.FromEnv(env(map[string]string{"HUB_OIDC_ISSUER": "https://sso.example.com/realms/acme", "HUB_OIDC_CLIENT_ID": "hub",
		"HUB_OIDC_CLIENT_SECRET": " s3cret ", "HUB_OIDC_REDIRECT_URL": "https://hub.example.com/api/session/oidc/callback"}))
	require.NoError(t, err)
	require.Equal(t, "s3cret", c.OIDC.ClientSecret)
	require.Equal(t, "https://hub.example.com/api/session/oidc/callback", c.OIDC.RedirectURL)
	for _, bad := range []map[string]string{
		{"HUB_OIDC_CLIENT_SECRET": "s3cret"},                                                                                             // no issuer
		{"HUB_OIDC_REDIRECT_URL": "https://hub.example.com/api/session/oidc/callback"},                                                   // no issuer
		{"HUB_OIDC_ISSUER": "https://sso.example.com", "HUB_OIDC_CLIENT_ID": "hub", "HUB_OIDC_REDIRECT_URL": "hub.example.com/callback"}, // not a URL
		{"HUB_OIDC_ISSUER": "https://sso.example.com/realms/acme"},                                                                       // no client id or audience
		{"HUB_OIDC_CLIENT_ID": "hub"},                                                                                                    // no issuer
		{"HUB_OIDC_ISSUER": "sso.example.com/realms/acme", "HUB_OIDC_CLIENT_ID": "hub"},                                                  // not a URL
	} {
		_, err := config.FromEnv(env(bad))
		require.ErrorContains(t, err, "HUB_OIDC_", "%v", bad)
	}
}
