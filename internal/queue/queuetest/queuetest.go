// Package queuetest gives tests queues of their own on the SQS emulator
// (fauxqs, started by `make test`): each set gets a random name prefix, so
// tests run in parallel without seeing each other's messages.
package queuetest

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/queue"
)

var (
	clientOnce sync.Once
	client     *sqs.Client
	clientErr  error
)

// Client returns an SQS client for the emulator; it skips t (or fails it
// under SESAME_REQUIRE_EMULATORS) when AWS_ENDPOINT_URL_SQS is unset.
func Client(t testing.TB) *sqs.Client {
	t.Helper()
	emulatortest.Require(t, "AWS_ENDPOINT_URL_SQS")
	clientOnce.Do(func() {
		cfg, err := awsconfig.LoadDefaultConfig(context.Background())
		if err != nil {
			clientErr = err
			return
		}
		client = sqs.NewFromConfig(cfg)
	})
	if clientErr != nil {
		t.Fatal(clientErr)
	}
	return client
}

// Def is a test queue definition: a one-second visibility timeout, so a
// failed message comes back quickly.
func Def(name string, maxReceives int) queue.Def {
	return queue.Def{Name: name, VisibilityTimeout: time.Second, MaxReceives: maxReceives}
}

// Set is a test's own set of queues, made by queue.Ensure under a random
// prefix and deleted when the test ends.
type Set struct {
	SQS    *sqs.Client
	Prefix string
	// URLs maps every queue name and dead-letter queue name (without the
	// prefix) to its URL, as queue.Ensure returns it.
	URLs map[string]string
}

// New creates defs (and their dead-letter queues) for t.
func New(t testing.TB, defs ...queue.Def) *Set {
	t.Helper()
	c := Client(t)
	s := &Set{SQS: c, Prefix: NewPrefix()}
	urls, err := queue.Ensure(context.Background(), c, s.Prefix, defs)
	if err != nil {
		t.Fatal(err)
	}
	s.URLs = urls
	t.Cleanup(func() {
		for _, u := range urls {
			_, _ = c.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
		}
	})
	return s
}

// NewPrefix returns a fresh queue-name prefix.
func NewPrefix() string {
	return "t" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12] + "-"
}

// URL returns the URL of queue name (unprefixed).
func (s *Set) URL(t testing.TB, name string) string {
	t.Helper()
	u, ok := s.URLs[name]
	if !ok {
		t.Fatalf("no queue %q in this set (have %v)", name, s.URLs)
	}
	return u
}

// Attributes returns every attribute of queue name.
func (s *Set) Attributes(t testing.TB, name string) map[string]string {
	t.Helper()
	out, err := s.SQS.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(s.URL(t, name)), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes
}

// ARN returns the ARN of queue name.
func (s *Set) ARN(t testing.TB, name string) string {
	t.Helper()
	return s.Attributes(t, name)[string(sqstypes.QueueAttributeNameQueueArn)]
}

// Counts returns how many messages of queue name are visible and how many
// are in flight (received, neither deleted nor timed out).
func (s *Set) Counts(t testing.TB, name string) (visible, inFlight int) {
	t.Helper()
	attrs := s.Attributes(t, name)
	visible = atoi(t, attrs[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	inFlight = atoi(t, attrs[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return visible, inFlight
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("queue attribute %q is not a number", s)
	}
	return n
}

// Send sends one message per body to queue name and returns their
// message ids in order.
func (s *Set) Send(t testing.TB, name string, bodies ...string) []string {
	t.Helper()
	ids := make([]string, 0, len(bodies))
	for _, b := range bodies {
		out, err := s.SQS.SendMessage(context.Background(), &sqs.SendMessageInput{
			QueueUrl: aws.String(s.URL(t, name)), MessageBody: aws.String(b),
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, aws.ToString(out.MessageId))
	}
	return ids
}

// Poller returns a poller of queue name into consume, with a short long-poll
// and a logger that writes to the test's output.
func (s *Set) Poller(t testing.TB, name string, consume queue.Consumer) *queue.Poller {
	t.Helper()
	return &queue.Poller{
		SQS:      s.SQS,
		QueueURL: s.URL(t, name),
		QueueARN: s.ARN(t, name),
		Consume:  consume,
		Logger:   Logger(t),
		Wait:     time.Second,
	}
}

// Logger writes to the test's output.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}
