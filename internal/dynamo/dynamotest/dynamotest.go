// Package dynamotest gives tests a fresh table on DynamoDB Local (started by
// `make test`) and a DB wrapper that counts calls and injects faults.
package dynamotest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/emulatortest"
)

var (
	clientOnce sync.Once
	client     *dynamodb.Client
	clientErr  error
)

// Client returns a DynamoDB client for DynamoDB Local.
func Client(t testing.TB) *dynamodb.Client {
	t.Helper()
	emulatortest.Require(t, "AWS_ENDPOINT_URL_DYNAMODB")
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

// NewStore returns every repository over a fresh table, reached through a
// Recorder.
func NewStore(t testing.TB) (repositories.Set, *Recorder) {
	t.Helper()
	// Capacity is measured so tests can hold the write-unit budget.
	rec := &Recorder{DB: Client(t), MeasureCapacity: true}
	return repositories.New(dynamo.NewTable(rec, NewTable(t))), rec
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

// CheckKeyLayout fails t unless every item of table is keyed as
// dynamo's layout promises: workspace data under WS#<id>#<kind> of an
// existing workspace and a kind the layout lists, and only the global
// prefixes (API-key secrets, domain claims) outside every workspace; on
// the index, only the global index keys (the console's workspace list).
func CheckKeyLayout(t testing.TB, table string) {
	t.Helper()
	items := Items(t, table)
	workspaces := map[string]bool{}
	for _, it := range items {
		if ws, ok := dynamo.IsWorkspaceRecord(stringAttr(it, schema.AttrPK)); ok {
			workspaces[ws] = true
		}
	}
	inWorkspace := func(key string) bool {
		ws, kind, ok := dynamo.WorkspaceOf(key)
		return ok && workspaces[ws] && slices.Contains(dynamo.WorkspaceKinds, kind)
	}
	hasPrefix := func(key string, prefixes []string) bool {
		return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(key, p) })
	}
	for _, it := range items {
		pk, sk := stringAttr(it, schema.AttrPK), stringAttr(it, schema.AttrSK)
		if !inWorkspace(pk) && !hasPrefix(pk, dynamo.GlobalPrefixes) {
			t.Errorf("item %s / %s is outside every workspace and every listed prefix", pk, sk)
		}
		if _, ok := it[schema.AttrGSI1PK]; ok {
			if k := stringAttr(it, schema.AttrGSI1PK); !inWorkspace(k) && !slices.Contains(dynamo.GlobalIndexKeys, k) {
				t.Errorf("item %s / %s is on the index under %s, outside every workspace", pk, sk, k)
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
