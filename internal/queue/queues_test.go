package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
)

func TestEnsureCreatesQueuesWithDeadLetterQueues(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := queuetest.Client(t)
	prefix := queuetest.NewPrefix()
	defs := []queue.Def{
		{Name: "alpha", VisibilityTimeout: 7 * time.Second, MaxReceives: 3},
		{Name: "beta", VisibilityTimeout: 2 * time.Minute, MaxReceives: 30},
	}
	urls, err := queue.Ensure(ctx, c, prefix, defs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, u := range urls {
			_, _ = c.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
		}
	})
	if len(urls) != 2*len(defs) {
		t.Fatalf("Ensure returned %d URLs, want one per queue and one per DLQ: %v", len(urls), urls)
	}

	attrs := func(t *testing.T, url string) map[string]string {
		t.Helper()
		out, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
		})
		if err != nil {
			t.Fatal(err)
		}
		return out.Attributes
	}
	for _, d := range defs {
		t.Run(d.Name, func(t *testing.T) {
			for _, name := range []string{d.Name, d.DLQName()} {
				got, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(prefix + name)})
				if err != nil {
					t.Fatalf("queue %s was not created: %v", prefix+name, err)
				}
				if aws.ToString(got.QueueUrl) != urls[name] {
					t.Errorf("URL of %s = %q, Ensure returned %q", name, aws.ToString(got.QueueUrl), urls[name])
				}
			}

			main, dlq := attrs(t, urls[d.Name]), attrs(t, urls[d.DLQName()])
			if got, want := main["VisibilityTimeout"], strconv.Itoa(int(d.VisibilityTimeout/time.Second)); got != want {
				t.Errorf("VisibilityTimeout = %q, want %q", got, want)
			}
			var redrive struct {
				DeadLetterTargetArn string `json:"deadLetterTargetArn"`
				MaxReceiveCount     any    `json:"maxReceiveCount"` // a string as sent; AWS answers a number
			}
			if err := json.Unmarshal([]byte(main["RedrivePolicy"]), &redrive); err != nil {
				t.Fatalf("RedrivePolicy %q: %v", main["RedrivePolicy"], err)
			}
			if redrive.DeadLetterTargetArn == "" || redrive.DeadLetterTargetArn != dlq["QueueArn"] {
				t.Errorf("redrive target = %q, want the DLQ's ARN %q", redrive.DeadLetterTargetArn, dlq["QueueArn"])
			}
			if got := fmt.Sprint(redrive.MaxReceiveCount); got != strconv.Itoa(d.MaxReceives) {
				t.Errorf("maxReceiveCount = %s, want %d", got, d.MaxReceives)
			}
			if p, ok := dlq["RedrivePolicy"]; ok && p != "" {
				t.Errorf("the DLQ itself has a redrive policy %q", p)
			}
		})
	}

	again, err := queue.Ensure(ctx, c, prefix, defs)
	if err != nil {
		t.Fatalf("second Ensure: %v", err)
	}
	if !maps.Equal(again, urls) {
		t.Errorf("second Ensure returned %v, want the same URLs %v", again, urls)
	}
}

// Every queue of Sesame can be created on the emulator under a prefix.
func TestEnsureAllQueues(t *testing.T) {
	t.Parallel()
	s := queuetest.New(t, queue.All...)
	for _, d := range queue.All {
		for _, name := range []string{d.Name, d.DLQName()} {
			if !strings.HasSuffix(s.URL(t, name), "/"+s.Prefix+name) {
				t.Errorf("URL of %s = %q", name, s.URL(t, name))
			}
		}
	}
}

// The emulator's queue URLs are URLs of the emulator itself, as real SQS
// URLs are of its endpoint: `.sesame/dev.env` once carried
// http://sqs.us-east-1.127.0.0.1:18001:18001/…, a host with the port twice
// (fauxqs-loopback.mjs gave fauxqs a host that already held the port).
func TestEmulatorQueueURLsAreTheEndpoints(t *testing.T) {
	t.Parallel()
	s := queuetest.New(t, queue.Review)
	endpoint, err := url.Parse(os.Getenv("AWS_ENDPOINT_URL_SQS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{queue.Review.Name, queue.Review.DLQName()} {
		raw := s.URL(t, name)
		u, err := url.Parse(raw)
		if err != nil {
			t.Errorf("URL of %s = %q: %v", name, raw, err)
			continue
		}
		if u.Scheme != endpoint.Scheme || u.Host != endpoint.Host || u.Path != "/000000000000/"+s.Prefix+name {
			t.Errorf("URL of %s = %q, want %s://%s/000000000000/%s", name, raw, endpoint.Scheme, endpoint.Host, s.Prefix+name)
		}
	}
}

// The definitions stay within what SQS accepts, so the CDK stack and the
// local setup never fail on them.
func TestDefsAreValidSQSQueues(t *testing.T) {
	validName := regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)
	seen := map[string]bool{}
	for _, d := range queue.All {
		for _, name := range []string{d.Name, d.DLQName()} {
			if !validName.MatchString(name) {
				t.Errorf("queue name %q is not a valid SQS name", name)
			}
			if seen[name] {
				t.Errorf("queue name %q is used twice", name)
			}
			seen[name] = true
		}
		if d.VisibilityTimeout%time.Second != 0 || d.VisibilityTimeout < time.Second || d.VisibilityTimeout > 12*time.Hour {
			t.Errorf("%s: VisibilityTimeout %v must be whole seconds in 1s..12h", d.Name, d.VisibilityTimeout)
		}
		if d.MaxReceives < 1 || d.MaxReceives > 1000 {
			t.Errorf("%s: MaxReceives %d must be in 1..1000", d.Name, d.MaxReceives)
		}
	}
}

// fakeAdmin is a queue.Admin whose calls are function fields.
type fakeAdmin struct {
	createQueue        func(in *sqs.CreateQueueInput) (*sqs.CreateQueueOutput, error)
	getQueueAttributes func(in *sqs.GetQueueAttributesInput) (*sqs.GetQueueAttributesOutput, error)
}

func (f fakeAdmin) CreateQueue(_ context.Context, in *sqs.CreateQueueInput, _ ...func(*sqs.Options)) (*sqs.CreateQueueOutput, error) {
	return f.createQueue(in)
}

func (f fakeAdmin) GetQueueAttributes(_ context.Context, in *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	return f.getQueueAttributes(in)
}

func TestEnsureErrors(t *testing.T) {
	boom := errors.New("boom")
	created := func(in *sqs.CreateQueueInput) (*sqs.CreateQueueOutput, error) {
		return &sqs.CreateQueueOutput{QueueUrl: aws.String("http://sqs.local/000000000000/" + aws.ToString(in.QueueName))}, nil
	}
	arn := func(*sqs.GetQueueAttributesInput) (*sqs.GetQueueAttributesOutput, error) {
		return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{"QueueArn": "arn:aws:sqs:us-east-1:000000000000:p-work-dlq"}}, nil
	}
	cases := map[string]struct {
		admin    fakeAdmin
		wantName string
	}{
		"dead-letter queue cannot be created": {
			admin: fakeAdmin{
				createQueue: func(in *sqs.CreateQueueInput) (*sqs.CreateQueueOutput, error) {
					if strings.HasSuffix(aws.ToString(in.QueueName), "-dlq") {
						return nil, boom
					}
					return created(in)
				},
				getQueueAttributes: arn,
			},
			wantName: "work-dlq",
		},
		"dead-letter queue ARN unavailable": {
			admin: fakeAdmin{
				createQueue: created,
				getQueueAttributes: func(*sqs.GetQueueAttributesInput) (*sqs.GetQueueAttributesOutput, error) {
					return nil, boom
				},
			},
			wantName: "work-dlq",
		},
		"queue cannot be created": {
			admin: fakeAdmin{
				createQueue: func(in *sqs.CreateQueueInput) (*sqs.CreateQueueOutput, error) {
					if !strings.HasSuffix(aws.ToString(in.QueueName), "-dlq") {
						return nil, boom
					}
					return created(in)
				},
				getQueueAttributes: arn,
			},
			wantName: "work",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			urls, err := queue.Ensure(t.Context(), tc.admin, "p-", []queue.Def{{Name: "work", VisibilityTimeout: time.Minute, MaxReceives: 5}})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want it to wrap the SQS error", err)
			}
			if !strings.Contains(err.Error(), " "+tc.wantName+":") {
				t.Errorf("err = %q, want it to name queue %s", err, tc.wantName)
			}
			if urls != nil {
				t.Errorf("urls = %v on error", urls)
			}
		})
	}
}
