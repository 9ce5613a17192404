package egress_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"syscall"
	"testing"

	"code.dny.dev/ssrf"

	"github.com/sesame-mail/sesame/internal/egress"
)

// What fails alike when tried again is permanent; the rest may pass.
func TestPermanent(t *testing.T) {
	get := func(err error) error { return &url.Error{Op: "Get", URL: "https://files.example/a.pdf", Err: err} }
	cases := map[string]struct {
		err       error
		permanent bool
	}{
		"guard refused":       {get(&net.OpError{Op: "dial", Err: ssrf.ErrProhibitedIP}), true},
		"no such host":        {get(&net.DNSError{Name: "files.example", IsNotFound: true}), true},
		"invalid certificate": {get(x509.HostnameError{Certificate: &x509.Certificate{}, Host: "files.example"}), true},
		"dns server failure":  {get(&net.DNSError{Name: "files.example", IsTemporary: true}), false},
		"timeout":             {get(context.DeadlineExceeded), false},
		"refused":             {get(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), false},
		"reset":               {get(fmt.Errorf("read: %w", syscall.ECONNRESET)), false},
	}
	for name, tc := range cases {
		if got := egress.Permanent(tc.err); got != tc.permanent {
			t.Errorf("%s: Permanent = %v, want %v", name, got, tc.permanent)
		}
	}
}
