// Package identity verifies the tokens of an OpenID Connect provider the
// operator points Hub at (HUB_OIDC_ISSUER): a bearer JWT is checked against
// the provider's discovery document and keys by github.com/coreos/go-oidc,
// which fetches the keys again for an unknown key id. Nothing here parses a
// JWT by hand.
package identity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/sync/singleflight"
)

// Config is where the provider is and which tokens of it Hub takes.
type Config struct {
	// Issuer is the provider's issuer URL (HUB_OIDC_ISSUER); empty: OpenID
	// Connect is off and only Hub's own tokens sign in.
	Issuer string
	// ClientID is Hub's client at the provider (HUB_OIDC_CLIENT_ID).
	ClientID string
	// Audience is the aud a token must name (HUB_OIDC_AUDIENCE; empty:
	// ClientID, the aud of an ID token and at most providers of an access
	// token issued to that client).
	Audience string
	// ClientSecret is a confidential client's secret
	// (HUB_OIDC_CLIENT_SECRET); empty: a public client, protected by PKCE.
	ClientSecret string
	// RedirectURL is the sign-in's callback as registered at the provider
	// (HUB_OIDC_REDIRECT_URL); empty: derived from each request.
	RedirectURL string
}

// Enabled reports whether an issuer is configured.
func (c Config) Enabled() bool { return c.Issuer != "" }

// audience is the aud a token must name.
func (c Config) audience() string { return cmp.Or(c.Audience, c.ClientID) }

// Check reports a configuration that cannot work.
func (c Config) Check() error {
	if !c.Enabled() {
		if c.ClientID != "" || c.Audience != "" || c.ClientSecret != "" || c.RedirectURL != "" {
			return errors.New("HUB_OIDC_CLIENT_ID, HUB_OIDC_AUDIENCE, HUB_OIDC_CLIENT_SECRET and HUB_OIDC_REDIRECT_URL need HUB_OIDC_ISSUER")
		}
		return nil
	}
	if !strings.HasPrefix(c.Issuer, "https://") && !strings.HasPrefix(c.Issuer, "http://") {
		return fmt.Errorf("HUB_OIDC_ISSUER %q is not an http(s) URL", c.Issuer)
	}
	if c.audience() == "" {
		return errors.New("HUB_OIDC_ISSUER needs HUB_OIDC_CLIENT_ID (or HUB_OIDC_AUDIENCE): a token is only taken for Hub's audience")
	}
	if c.RedirectURL != "" && !strings.HasPrefix(c.RedirectURL, "https://") && !strings.HasPrefix(c.RedirectURL, "http://") {
		return fmt.Errorf("HUB_OIDC_REDIRECT_URL %q is not an http(s) URL", c.RedirectURL)
	}
	return nil
}

// Subject is who a verified token names: Issuer and Subject together name
// one person for good.
type Subject struct {
	Issuer  string
	Subject string
	Name    string // the provider's name for them (nameClaims.name)
}

// ErrRefused is a token that is not good (signature, algorithm, issuer,
// audience, expiry or subject).
var ErrRefused = errors.New("the identity provider's token is refused")

// ErrUnreachable is a provider whose discovery document could not be read:
// no token of it can be checked now.
var ErrUnreachable = errors.New("the identity provider cannot be reached")

// Verifier checks tokens of one provider. It reads the discovery document
// on the first token, not at start, so a provider that is down stops nobody
// who signs in with a Hub token; until it answers, each token retries it.
type Verifier struct {
	cfg    Config
	client *http.Client

	discovery singleflight.Group
	verifier  atomic.Pointer[oidc.IDTokenVerifier] // nil until discovery answered
	provider  atomic.Pointer[oidc.Provider]        // set with verifier
}

// New returns the verifier of cfg's provider; client makes its requests
// (nil: one with a 10-second timeout). The issuer is the operator's
// configuration, not a user's input, so its requests skip the connected
// apps' address guard: a provider on a private network is allowed.
func New(cfg Config, client *http.Client) *Verifier {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &Verifier{cfg: cfg, client: client}
}

// LooksLikeJWT reports whether a bearer is shaped as a JWT (three
// base64url parts) rather than a Hub token (hub_…).
func LooksLikeJWT(token string) bool {
	return !strings.HasPrefix(token, "hub_") && strings.Count(token, ".") == 2
}

// Verify checks a token and returns its subject: ErrRefused for a token
// that is not good, ErrUnreachable when the provider cannot be asked.
func (v *Verifier) Verify(ctx context.Context, raw string) (Subject, error) {
	verifier, err := v.discover(ctx)
	if err != nil {
		return Subject{}, err
	}
	tok, err := verifier.Verify(oidc.ClientContext(ctx, v.client), raw)
	if err != nil {
		return Subject{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	return subjectOf(tok)
}

// subjectOf is the subject of a verified token.
func subjectOf(tok *oidc.IDToken) (Subject, error) {
	if tok.Subject == "" {
		return Subject{}, fmt.Errorf("%w: it names no subject", ErrRefused)
	}
	var claims nameClaims
	if err := tok.Claims(&claims); err != nil {
		return Subject{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	return Subject{Issuer: tok.Issuer, Subject: tok.Subject, Name: claims.name()}, nil
}

// nameClaims are the claims a person's name is taken from.
type nameClaims struct {
	Name              string `json:"name"`
	PreferredUsername string `json:"preferred_username"`
	Email             string `json:"email"`
}

// name is the name claim, else preferred_username, else email ("": none).
func (c nameClaims) name() string {
	for _, n := range []string{c.Name, c.PreferredUsername, c.Email} {
		if n = strings.TrimSpace(n); n != "" && utf8.ValidString(n) {
			return n
		}
	}
	return ""
}

// discover reads the discovery document once it answers; the keys are read
// as tokens need them. Tokens that come meanwhile wait for that one read, so
// a provider that hangs costs one request at a time.
func (v *Verifier) discover(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	if verifier := v.verifier.Load(); verifier != nil {
		return verifier, nil
	}
	ch := v.discovery.DoChan("discover", func() (any, error) {
		if verifier := v.verifier.Load(); verifier != nil {
			return verifier, nil
		}
		// The key set keeps this context for later fetches: the request's
		// values (the client), never its end.
		p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), v.client), v.cfg.Issuer)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		// The algorithms are those the discovery document lists; go-oidc
		// never takes "none".
		verifier := p.Verifier(&oidc.Config{ClientID: v.cfg.audience()})
		v.provider.Store(p)
		v.verifier.Store(verifier)
		return verifier, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*oidc.IDTokenVerifier), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
