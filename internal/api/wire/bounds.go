package wire

import (
	"context"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go/middleware"

	"github.com/sesame-mail/sesame/internal/config"
)

// Bound returns cfg with every call of the clients built from it bounded
// by b (zero fields: the defaults):
//
//   - the HTTP client: dial and TLS handshake within ConnectTimeout, the
//     response headers within AttemptTimeout of the request being written
//     (an upload, however large, is bounded by the call, not the
//     attempt). A timed-out attempt is a connection error the SDK retries;
//   - the call, retries included, within CallTimeout, and within the
//     caller's own deadline when that is sooner.
//
// The error of a call that runs out wraps context.DeadlineExceeded or a
// net.Error timeout; the adapters read it as a transient fault (503 with
// Retry-After on a route, a retried message on a queue). An HTTP client
// that is not the SDK's own (a test's fake) is kept as it is; the call
// bound still applies.
func Bound(cfg aws.Config, b config.SDK) aws.Config {
	b = b.SDKBounds()
	base, ok := cfg.HTTPClient.(*awshttp.BuildableClient)
	if cfg.HTTPClient == nil {
		base, ok = awshttp.NewBuildableClient(), true
	}
	if ok {
		cfg.HTTPClient = base.
			WithDialerOptions(func(d *net.Dialer) { d.Timeout = b.ConnectTimeout }).
			WithTransportOptions(func(t *http.Transport) {
				t.TLSHandshakeTimeout = b.ConnectTimeout
				t.ResponseHeaderTimeout = b.AttemptTimeout
			})
	}
	// A copy: cfg's slice may be shared with the caller's.
	cfg.APIOptions = append(slices.Clone(cfg.APIOptions), func(s *middleware.Stack) error {
		return s.Initialize.Add(callDeadline(b.CallTimeout), middleware.Before)
	})
	return cfg
}

// callDeadlineID names the call deadline step, so LongCall can swap it.
const callDeadlineID = "SesameCallDeadline"

// callDeadline is the first step of every call: the rest of it, retries
// included, runs under a deadline d away. The deadline ends with the
// call, which suits the APIs Sesame calls: their answers are read whole
// before the call returns (no streamed bodies).
func callDeadline(d time.Duration) middleware.InitializeMiddleware {
	return middleware.InitializeMiddlewareFunc(callDeadlineID,
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return next.HandleInitialize(ctx, in)
		})
}

// LongCall gives the calls of one client, whose HTTP client and API
// options came from a Bound config, d to run and as long to wait for an
// answer in one attempt: for a service whose request may be large and
// whose retry after a timeout could repeat its effect (an SES send).
func LongCall(c aws.HTTPClient, apiOptions []func(*middleware.Stack) error, d time.Duration) (aws.HTTPClient, []func(*middleware.Stack) error) {
	if b, ok := c.(*awshttp.BuildableClient); ok {
		c = b.WithTransportOptions(func(t *http.Transport) { t.ResponseHeaderTimeout = d })
	}
	return c, append(slices.Clone(apiOptions), func(s *middleware.Stack) error {
		_, err := s.Initialize.Swap(callDeadlineID, callDeadline(d))
		return err
	})
}
