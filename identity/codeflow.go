package identity

import (
	"context"
	"errors"
	"fmt"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// The browser's sign-in is the authorization-code flow with PKCE (S256),
// run by api/oidc_login.go: the provider's tokens never reach the browser.

// scopes are openid and the claims a person's name is taken from.
var scopes = []string{oidc.ScopeOpenID, "profile", "email"}

// oauth2Config is the client's configuration at the provider.
func (v *Verifier) oauth2Config(ctx context.Context, redirectURL string) (*oauth2.Config, error) {
	if _, err := v.discover(ctx); err != nil {
		return nil, err
	}
	p := v.provider.Load()
	return &oauth2.Config{ClientID: v.cfg.ClientID, ClientSecret: v.cfg.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: redirectURL, Scopes: scopes}, nil
}

// RedirectURL is the configured callback ("" when it is to be derived from
// the request).
func (v *Verifier) RedirectURL() string { return v.cfg.RedirectURL }

// AuthCodeURL is the provider's authorization URL that starts a sign-in:
// state and nonce as given, and the S256 challenge of verifier.
// ErrUnreachable when the provider's discovery document cannot be read.
func (v *Verifier) AuthCodeURL(ctx context.Context, redirectURL, state, nonce, verifier string) (string, error) {
	conf, err := v.oauth2Config(ctx, redirectURL)
	if err != nil {
		return "", err
	}
	return conf.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), nil
}

// ErrExchange is a code the provider would not exchange for tokens (used,
// expired, another client's, a wrong verifier), or an answer with no ID
// token.
var ErrExchange = errors.New("the identity provider refused the sign-in's code")

// Exchange trades a sign-in's code for the provider's tokens and returns
// the subject of its ID token, checked as Verify checks a token but with
// the client id as its audience and the sign-in's nonce.
func (v *Verifier) Exchange(ctx context.Context, redirectURL, code, verifier, nonce string) (Subject, error) {
	conf, err := v.oauth2Config(ctx, redirectURL)
	if err != nil {
		return Subject{}, err
	}
	cctx := oidc.ClientContext(ctx, v.client)
	tok, err := conf.Exchange(cctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Subject{}, fmt.Errorf("%w: %v", ErrExchange, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Subject{}, fmt.Errorf("%w: its answer has no ID token", ErrExchange)
	}
	id, err := v.provider.Load().Verifier(&oidc.Config{ClientID: v.cfg.ClientID}).Verify(cctx, raw)
	if err != nil {
		return Subject{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if id.Nonce != nonce {
		return Subject{}, fmt.Errorf("%w: its nonce is not the sign-in's", ErrRefused)
	}
	sub, err := subjectOf(id)
	if err != nil || sub.Name != "" {
		return sub, err
	}
	// Many providers put the profile in the userinfo answer rather than in
	// the ID token; it counts only for the same subject.
	if info, err := v.provider.Load().UserInfo(cctx, oauth2.StaticTokenSource(tok)); err == nil && info.Subject == sub.Subject {
		var claims nameClaims
		if info.Claims(&claims) == nil {
			sub.Name = claims.name()
		}
	}
	return sub, nil
}

// CodeFlow reports whether browsers can sign in through the provider: it
// needs the client id the flow runs as.
func (v *Verifier) CodeFlow() bool { return v.cfg.ClientID != "" }
