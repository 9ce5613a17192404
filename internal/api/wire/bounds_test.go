package wire_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"

	"github.com/sesame-mail/sesame/internal/api/emails/send"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/emulatortest"
)

// long is a bound no test reaches: the one under test ends the call first.
const long = time.Minute

// getItem is one DynamoDB call through a client built from cfg.
func getItem(ctx context.Context, cfg aws.Config) error {
	_, err := dynamodb.NewFromConfig(cfg).GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("t"), Key: map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: "k"}},
	})
	return err
}

// Each attempt at a stalled endpoint ends at the attempt timeout and is
// retried as the connection fault it is, up to the retryer's attempts.
func TestBoundEndsEachAttempt(t *testing.T) {
	stalled := emulatortest.NewStalled(t)
	cfg := stalled.Config()
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})
	}
	err := getItem(t.Context(), wire.Bound(cfg, config.SDK{AttemptTimeout: 50 * time.Millisecond, CallTimeout: long}))
	var netErr net.Error
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if got := stalled.AcceptedAtLeast(3); got != 3 {
		t.Errorf("%d attempts reached the endpoint, want 3", got)
	}
}

// The whole call, retries included, ends at the call timeout, or at the
// caller's deadline when that comes first; so does a call of every
// service a function uses.
func TestBoundEndsTheCall(t *testing.T) {
	stalled := emulatortest.NewStalled(t)
	calls := map[string]func(context.Context, aws.Config) error{
		"dynamodb": getItem,
		"ses": func(ctx context.Context, cfg aws.Config) error {
			_, err := sesv2.NewFromConfig(cfg).GetAccount(ctx, &sesv2.GetAccountInput{})
			return err
		},
		"sqs": func(ctx context.Context, cfg aws.Config) error {
			_, err := sqs.NewFromConfig(cfg).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(stalled.URL + "/q"), MessageBody: aws.String("m")})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name+" call timeout", func(t *testing.T) {
			err := call(t.Context(), wire.Bound(stalled.Config(), config.SDK{AttemptTimeout: long, CallTimeout: 50 * time.Millisecond}))
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want the call's deadline", err)
			}
		})
		t.Run(name+" caller's deadline", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			err := call(ctx, wire.Bound(stalled.Config(), config.SDK{AttemptTimeout: long, CallTimeout: long}))
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want the caller's deadline", err)
			}
		})
	}
}

// The SDK's HTTP client dials and shakes hands within the connect bound
// (1 s by default) and waits for an answer's headers within the attempt
// bound, whether Bound makes the client or is given the SDK's own.
func TestBoundSetsTheConnectBound(t *testing.T) {
	for name, tc := range map[string]struct {
		client         aws.HTTPClient
		b              config.SDK
		connect, reply time.Duration
	}{
		"defaults, no client":   {nil, config.SDK{}, config.DefaultConnectTimeout, config.DefaultAttemptTimeout},
		"set, the SDK's client": {awshttp.NewBuildableClient(), config.SDK{ConnectTimeout: 250 * time.Millisecond, AttemptTimeout: 2 * time.Second}, 250 * time.Millisecond, 2 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			c, ok := wire.Bound(aws.Config{HTTPClient: tc.client}, tc.b).HTTPClient.(*awshttp.BuildableClient)
			if !ok {
				t.Fatal("not the SDK's buildable client")
			}
			if got := c.GetDialer().Timeout; got != tc.connect {
				t.Errorf("dial timeout %v, want %v", got, tc.connect)
			}
			tr := c.GetTransport()
			if tr.TLSHandshakeTimeout != tc.connect {
				t.Errorf("TLS handshake timeout %v, want %v", tr.TLSHandshakeTimeout, tc.connect)
			}
			if tr.ResponseHeaderTimeout != tc.reply {
				t.Errorf("response header timeout %v, want %v", tr.ResponseHeaderTimeout, tc.reply)
			}
		})
	}
}

// Bound keeps an HTTP client that is not the SDK's own (a test's fake)
// and leaves the caller's API options as they were.
func TestBoundKeepsTheCallersSettings(t *testing.T) {
	fake := doFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("fake") })
	// Room for one more option: an append in place would write into it.
	own := make([]func(*middleware.Stack) error, 1, 2)
	own[0] = func(*middleware.Stack) error { return nil }
	got := wire.Bound(aws.Config{HTTPClient: fake, APIOptions: own}, config.SDK{})
	if _, ok := got.HTTPClient.(doFunc); !ok {
		t.Errorf("HTTP client replaced by %T", got.HTTPClient)
	}
	if len(got.APIOptions) != 2 || own[:2][1] != nil {
		t.Errorf("API options: bound has %d, the caller's array was written: %v", len(got.APIOptions), own[:2][1] != nil)
	}
}

type doFunc func(*http.Request) (*http.Response, error)

func (f doFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// An SES client waits for SES's answer as long as its call may last: the
// short attempts of the other services would cut a large send and retry
// it, which could send the email twice.
func TestSESBoundWaitsOneAttempt(t *testing.T) {
	stalled := emulatortest.NewStalled(t)
	b := config.SDK{AttemptTimeout: 20 * time.Millisecond, CallTimeout: long, SESCallTimeout: 300 * time.Millisecond}
	client := sesv2.NewFromConfig(wire.Bound(stalled.Config(), b), send.SESBound(b))
	_, err := client.GetAccount(t.Context(), &sesv2.GetAccountInput{})
	var netErr net.Error
	if !errors.Is(err, context.DeadlineExceeded) && !(errors.As(err, &netErr) && netErr.Timeout()) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if got := stalled.AcceptedAtLeast(1); got != 1 {
		t.Errorf("%d attempts reached the endpoint, want 1", got)
	}
}
