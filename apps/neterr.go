package apps

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"syscall"
)

// NetReason says in a few words why a connection failed, for a message a
// person or the model reads. It never quotes the error, whose text names
// Hub's own side of the network (resolver, local socket).
func NetReason(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &dns):
		switch {
		case dns.IsNotFound:
			return "no such host"
		case dns.IsTimeout:
			return "the name lookup timed out"
		}
		return "the name could not be looked up"
	case errors.Is(err, context.DeadlineExceeded):
		return "it did not answer in time"
	case errors.Is(err, context.Canceled):
		return "the request was cancelled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "there is no route to it"
	case errors.As(err, &cert), errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid):
		return "its TLS certificate was not accepted"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection was closed"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "it did not answer in time"
	}
	return "a network error"
}

// LookupError is a host name that could not be resolved when an address
// was checked (Guard.CheckURL). Its text says only NetReason's words.
type LookupError struct {
	Host string
	Err  error
}

func (e *LookupError) Error() string {
	return "the host " + e.Host + " cannot be found (" + NetReason(e.Err) + ")"
}

// Unwrap returns the resolver's error, for logs and errors.Is.
func (e *LookupError) Unwrap() error { return e.Err }

// HostNotFound marks a name that did not resolve, not a blocked address,
// for errors.As on an interface { HostNotFound() bool }.
func (e *LookupError) HostNotFound() bool { return true }
