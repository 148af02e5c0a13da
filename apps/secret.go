package apps

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// EnvSecretKey names the operator's key connection secrets are sealed with:
// 32 random bytes, base64 (`openssl rand -base64 32`).
const EnvSecretKey = "HUB_SECRET_KEY"

// SecretKeySize is the key's length in bytes (AES-256).
const SecretKeySize = 32

// ErrNoSecretKey is what sealing or opening without a key returns.
var ErrNoSecretKey = errors.New(EnvSecretKey + " is not set, so Hub cannot keep connection secrets")

// SecretBox seals connection secrets for the database with AES-256-GCM, a
// fresh random nonce in front of each ciphertext.
type SecretBox struct {
	aead cipher.AEAD
}

// ParseSecretKey reads a base64 key as EnvSecretKey holds it.
func ParseSecretKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		key, err = base64.RawStdEncoding.DecodeString(s)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not base64: %w", EnvSecretKey, err)
	}
	if len(key) != SecretKeySize {
		return nil, fmt.Errorf("%s must be %d bytes (base64 of 32 random bytes), not %d", EnvSecretKey, SecretKeySize, len(key))
	}
	return key, nil
}

// NewSecretKey returns a fresh key in the form EnvSecretKey holds it.
func NewSecretKey() string {
	key := make([]byte, SecretKeySize)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	return base64.StdEncoding.EncodeToString(key)
}

// NewSecretBox returns a box for key; an empty key gives a box that refuses
// to seal and open (ErrNoSecretKey), so Hub runs without one.
func NewSecretBox(key []byte) (*SecretBox, error) {
	if len(key) == 0 {
		return &SecretBox{}, nil
	}
	if len(key) != SecretKeySize {
		return nil, fmt.Errorf("%s must be %d bytes, not %d", EnvSecretKey, SecretKeySize, len(key))
	}
	var aead cipher.AEAD
	block, err := aes.NewCipher(key)
	if err == nil {
		aead, err = cipher.NewGCM(block)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvSecretKey, err)
	}
	return &SecretBox{aead: aead}, nil
}

// Seal encrypts a secret: nonce followed by ciphertext and tag.
func (b *SecretBox) Seal(secret []byte) ([]byte, error) {
	if b == nil || b.aead == nil {
		return nil, ErrNoSecretKey
	}
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(secret)+b.aead.Overhead())
	_, _ = rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, secret, nil), nil
}

// Open decrypts what Seal returned; anything else (another key, a changed
// byte) is an error.
func (b *SecretBox) Open(sealed []byte) ([]byte, error) {
	if b == nil || b.aead == nil {
		return nil, ErrNoSecretKey
	}
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, errors.New("the sealed secret is too short")
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, errors.New("the sealed secret does not open with this key")
	}
	return out, nil
}
