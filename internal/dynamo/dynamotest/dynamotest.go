// Package dynamotest gives tests a fresh table on DynamoDB Local (started by
// `make test`) and a DB wrapper that counts calls and injects faults.
package dynamotest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// RequireEmulators skips t when no emulator endpoint is configured, or fails
// it when SESAME_REQUIRE_EMULATORS is set (as `make test` does), so CI can
// never pass by skipping.
func RequireEmulators(t testing.TB, envVar string) string {
	t.Helper()
	endpoint := os.Getenv(envVar)
	if endpoint == "" {
		if os.Getenv("SESAME_REQUIRE_EMULATORS") != "" {
			t.Fatalf("%s is not set; run the tests with `make test`", envVar)
		}
		t.Skipf("%s is not set; run `make test` to start the emulators", envVar)
	}
	return endpoint
}

var (
	clientOnce sync.Once
	client     *dynamodb.Client
	clientErr  error
)

// Client returns a DynamoDB client for DynamoDB Local.
func Client(t testing.TB) *dynamodb.Client {
	t.Helper()
	RequireEmulators(t, "AWS_ENDPOINT_URL_DYNAMODB")
	clientOnce.Do(func() {
		cfg, err := awsconfig.LoadDefaultConfig(context.Background())
		if err != nil {
			clientErr = err
			return
		}
		client = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
			o.DisableValidateResponseChecksum = true // DynamoDB Local's CRC32s do not always match
		})
	})
	if clientErr != nil {
		t.Fatal(clientErr)
	}
	return client
}

// NewTable creates a table of its own for t from dynamo.Table and returns
// its name.
func NewTable(t testing.TB) string {
	t.Helper()
	c := Client(t)
	name := "test-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	if err := dynamo.EnsureTable(context.Background(), c, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name})
	})
	return name
}

// NewStore returns a store over a fresh table, reached through a Recorder.
func NewStore(t testing.TB) (*dynamo.Store, *Recorder) {
	t.Helper()
	// Capacity is measured so tests can hold the write-unit budget.
	rec := &Recorder{DB: Client(t), MeasureCapacity: true}
	return &dynamo.Store{DB: rec, Table: NewTable(t)}, rec
}

// Clock is a settable clock for Store.Now.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Items returns every item of table, read consistently.
func Items(t testing.TB, table string) []map[string]ddbtypes.AttributeValue {
	t.Helper()
	var out []map[string]ddbtypes.AttributeValue
	p := dynamodb.NewScanPaginator(Client(t), &dynamodb.ScanInput{TableName: &table, ConsistentRead: new(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
	}
	return out
}

// CheckKeyLayout fails t unless every item of table is keyed as the data
// model promises: workspace data under WS#<id># of an existing workspace,
// and only API-key records (APIKEY#) and domain claims (DOMAINCLAIM#)
// outside every workspace; on the index, only the console's workspace
// list (WORKSPACES) is outside one.
func CheckKeyLayout(t testing.TB, table string) {
	t.Helper()
	items := Items(t, table)
	workspaces := map[string]bool{}
	for _, it := range items {
		if pk := stringAttr(it, schema.AttrPK); strings.HasSuffix(pk, "#WORKSPACE") {
			workspaces[strings.TrimSuffix(strings.TrimPrefix(pk, "WS#"), "#WORKSPACE")] = true
		}
	}
	inWorkspace := func(key string) bool {
		id, _, ok := strings.Cut(strings.TrimPrefix(key, "WS#"), "#")
		return strings.HasPrefix(key, "WS#") && ok && workspaces[id]
	}
	for _, it := range items {
		pk := stringAttr(it, schema.AttrPK)
		if !inWorkspace(pk) && !strings.HasPrefix(pk, "APIKEY#") && !strings.HasPrefix(pk, "DOMAINCLAIM#") {
			t.Errorf("item %s / %s is outside every workspace", pk, stringAttr(it, schema.AttrSK))
		}
		if _, ok := it[schema.AttrGSI1PK]; ok {
			if k := stringAttr(it, schema.AttrGSI1PK); !inWorkspace(k) && k != "WORKSPACES" {
				t.Errorf("item %s / %s is on the index under %s, outside every workspace", pk, stringAttr(it, schema.AttrSK), k)
			}
		}
	}
}

func stringAttr(item map[string]ddbtypes.AttributeValue, name string) string {
	if v, ok := item[name].(*ddbtypes.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
