package webhookdb

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// maxAttemptsPerItem bounds the attempts one batch item holds (a batch
// has at most the dispatcher's batch size, 10, an endpoint): at most
// about 100 + 200 bytes of error text each, an item stays under 32 KB,
// far from DynamoDB's 400 KB.
const maxAttemptsPerItem = 100

// attemptBatchItem is the attempts of one dispatcher batch to one
// endpoint: sk is the newest attempt's time and a random key (which also
// picks the shard), the email ids a set an email's reads filter on.
type attemptBatchItem struct {
	PK        string   `dynamodbav:"pk"`
	SK        string   `dynamodbav:"sk"`
	Attempts  []byte   `dynamodbav:"attempts"`
	EmailIDs  [][]byte `dynamodbav:"email_ids,binaryset,omitempty"`
	ExpiresAt int64    `dynamodbav:"expires_at"`
}

// attemptItem reads either shape of the log: a batch item, or one
// attempt in attributes of its own (written before the batch items).
type attemptItem struct {
	SK       string `dynamodbav:"sk"`
	Attempts []byte `dynamodbav:"attempts"`
	// One attempt an item.
	EventID    string    `dynamodbav:"event_id"`
	EventType  string    `dynamodbav:"event_type"`
	EmailID    string    `dynamodbav:"email_id"`
	Number     int       `dynamodbav:"attempt"`
	At         time.Time `dynamodbav:"at"`
	StatusCode int       `dynamodbav:"status_code"`
	LatencyMS  int64     `dynamodbav:"latency_ms"`
	Error      string    `dynamodbav:"error"`
}

func (it attemptItem) SortKey() string { return it.SK }

// attempts are the item's attempts, newest first.
func (it attemptItem) attempts(workspaceID, endpointID string) ([]webhook.Attempt, error) {
	if it.Attempts == nil {
		return []webhook.Attempt{{
			WorkspaceID: workspaceID, EndpointID: endpointID, EventID: it.EventID,
			EventType: event.Type(it.EventType), EmailID: it.EmailID, Number: it.Number, At: it.At,
			StatusCode: it.StatusCode, LatencyMS: it.LatencyMS, Error: it.Error,
		}}, nil
	}
	as, err := unpackAttempts(it.Attempts, workspaceID, endpointID)
	if err != nil {
		return nil, fmt.Errorf("webhook attempts %s: %w", it.SK, err)
	}
	slices.SortStableFunc(as, func(a, b webhook.Attempt) int { return b.At.Compare(a.At) })
	return as, nil
}

// RecordAttempt adds one attempt to the endpoint's log (RecordAttempts
// of one).
func (s *Webhooks) RecordAttempt(ctx context.Context, a webhook.Attempt) error {
	return s.RecordAttempts(ctx, []webhook.Attempt{a})
}

// RecordAttempts adds a dispatcher batch's attempts to their endpoints'
// logs: one item per endpoint (and per maxAttemptsPerItem), in one
// PutItem, or BatchWriteItems when there are several.
func (s *Webhooks) RecordAttempts(ctx context.Context, attempts []webhook.Attempt) error {
	var items []attemptBatchItem
	for _, group := range byEndpoint(attempts) {
		for chunk := range slices.Chunk(group, maxAttemptsPerItem) {
			item, err := newAttemptBatchItem(chunk)
			if err != nil {
				return err
			}
			items = append(items, item)
		}
	}
	switch len(items) {
	case 0:
		return nil
	case 1:
		if err := s.PutItem(ctx, items[0], dynamo.NoCondition); err != nil {
			return fmt.Errorf("record webhook attempts: %w", err)
		}
		return nil
	}
	requests := make([]ddbtypes.WriteRequest, 0, len(items))
	for _, it := range items {
		av, err := attributevalue.MarshalMap(it)
		if err != nil {
			return err
		}
		requests = append(requests, ddbtypes.WriteRequest{PutRequest: &ddbtypes.PutRequest{Item: av}})
	}
	if err := s.BatchWrite(ctx, requests); err != nil {
		return fmt.Errorf("record webhook attempts: %w", err)
	}
	return nil
}

// byEndpoint groups attempts by workspace and endpoint, in first-seen
// order.
func byEndpoint(attempts []webhook.Attempt) [][]webhook.Attempt {
	var groups [][]webhook.Attempt
	index := map[[2]string]int{}
	for _, a := range attempts {
		k := [2]string{a.WorkspaceID, a.EndpointID}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], a)
	}
	return groups
}

func newAttemptBatchItem(attempts []webhook.Attempt) (attemptBatchItem, error) {
	var key [6]byte
	if _, err := rand.Read(key[:]); err != nil {
		return attemptBatchItem{}, err
	}
	batch := hex.EncodeToString(key[:])
	newest := newestAt(attempts)
	first := attempts[0]
	it := attemptBatchItem{
		PK: dynamo.WebhookAttemptPK(first.WorkspaceID, first.EndpointID, batch),
		SK: dynamo.TimeKey(newest) + "#" + batch, Attempts: packAttempts(attempts),
		ExpiresAt: newest.Add(webhook.RecordTTL).Unix(),
	}
	seen := map[string]bool{}
	for _, a := range attempts {
		if a.EmailID != "" && !seen[a.EmailID] {
			seen[a.EmailID] = true
			it.EmailIDs = append(it.EmailIDs, idBytes(a.EmailID))
		}
	}
	return it, nil
}

// A position in the log: below sort key sk, or, with skip > 0, inside
// the item at sk after its first skip attempts (newest first). No sort
// key has a space or a character below it, so sk and a space is the
// bound just above sk.
const positionSep = " "

func position(sk string, skip int) string {
	if skip == 0 {
		return sk
	}
	return sk + positionSep + strconv.Itoa(skip)
}

func parsePosition(after string) (sk string, skip int, err error) {
	sk, n, inside := strings.Cut(after, positionSep)
	if !inside {
		return sk, 0, nil
	}
	skip, err = strconv.Atoi(n)
	if err != nil || skip < 1 {
		return "", 0, fmt.Errorf("webhook attempts position %q: %w", after, errPacked)
	}
	return sk, skip, nil
}

// AttemptsPage returns up to limit attempts of an endpoint, newest first,
// after position after ("" for the first page): the log's shards, batch
// items and the items of one attempt each, merged by sort key (a batch
// item's is its newest attempt's time), and the attempts of one item
// newest first. next continues the list when more is true.
func (s *Webhooks) AttemptsPage(ctx context.Context, workspaceID, endpointID, after string, limit int) (attempts []webhook.Attempt, next string, more bool, err error) {
	sk, skip, err := parsePosition(after)
	if err != nil {
		return nil, "", false, err
	}
	below := sk
	if skip > 0 {
		below = sk + positionSep // the item at sk is read again
	}
	limit = max(limit, 1)
	items, next, more, err := dynamo.MergedPage[attemptItem](ctx, s.Table, dynamo.WebhookAttemptShardPKs(workspaceID, endpointID), below, limit)
	if err != nil {
		return nil, "", false, fmt.Errorf("list webhook attempts: %w", err)
	}
	for k, it := range items {
		as, err := it.attempts(workspaceID, endpointID)
		if err != nil {
			return nil, "", false, err
		}
		from := 0
		if skip > 0 && it.SK == sk {
			from = skip
		}
		for i := from; i < len(as); i++ {
			attempts = append(attempts, as[i])
			if len(attempts) < limit {
				continue
			}
			if i+1 < len(as) {
				return attempts, position(it.SK, i+1), true, nil
			}
			return attempts, it.SK, k+1 < len(items) || more, nil
		}
	}
	return attempts, next, more, nil
}

// ListAttempts returns up to limit attempts of an endpoint, newest first
// (the first page of AttemptsPage).
func (s *Webhooks) ListAttempts(ctx context.Context, workspaceID, endpointID string, limit int) ([]webhook.Attempt, error) {
	attempts, _, _, err := s.AttemptsPage(ctx, workspaceID, endpointID, "", limit)
	return attempts, err
}

// deliveredScan bounds the items DeliveredSince examines over the
// partitions it reads (about 250 read units at most): past it a
// duplicate job is delivered again, which at-least-once delivery allows.
const deliveredScan = 5000

// DeliveredSince reports whether the endpoint's attempt log has a 2xx
// attempt of the event at or after since, read consistently in the
// partitions that may hold the email's attempts: every batch shard and
// the email's shard of the items of one attempt (a job of an event
// delivered before the shards may be delivered again, as at-least-once
// allows).
func (s *Webhooks) DeliveredSince(ctx context.Context, workspaceID, endpointID, emailID, eventID string, since time.Time) (bool, error) {
	pks := append(dynamo.WebhookAttemptBatchPKs(workspaceID, endpointID), dynamo.LegacyWebhookAttemptPK(workspaceID, endpointID, emailID))
	attempts, _, err := s.emailAttemptsIn(ctx, pks, workspaceID, endpointID, emailID, since, true, deliveredScan)
	if err != nil {
		return false, fmt.Errorf("find webhook delivery: %w", err)
	}
	return slices.ContainsFunc(attempts, func(a webhook.Attempt) bool { return a.EventID == eventID && a.Succeeded() }), nil
}

// EmailAttempts returns the endpoint's attempts of the email's events
// made at or after since (the email's sending), oldest first: those in
// the batch shards, the email's shard of the items of one attempt, and
// the partition before the shards. It examines at most examine items (of
// any email's attempts), shared by those partitions, and reports whether
// it read them all (complete): the attempts of an email follow its
// sending closely, so the first ones examined are where they are.
func (s *Webhooks) EmailAttempts(ctx context.Context, workspaceID, endpointID, emailID string, since time.Time, examine int) (attempts []webhook.Attempt, complete bool, err error) {
	pks := append(dynamo.WebhookAttemptBatchPKs(workspaceID, endpointID),
		dynamo.LegacyWebhookAttemptPK(workspaceID, endpointID, emailID), dynamo.WSSubPK(workspaceID, dynamo.KindWebhookAttempt, endpointID))
	attempts, complete, err = s.emailAttemptsIn(ctx, pks, workspaceID, endpointID, emailID, since, false, examine)
	if err != nil {
		return nil, false, fmt.Errorf("find email webhook attempts: %w", err)
	}
	slices.SortFunc(attempts, func(a, b webhook.Attempt) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.EventID, b.EventID))
	})
	return attempts, complete, nil
}

// emailAttemptsIn is the attempts of the email's events at or after since
// in partitions pks (attemptsFrom's reading): a batch item names other
// emails' attempts too, which are left out.
func (s *Webhooks) emailAttemptsIn(ctx context.Context, pks []string, workspaceID, endpointID, emailID string, since time.Time, consistent bool, examine int) ([]webhook.Attempt, bool, error) {
	items, complete, err := s.attemptsFrom(ctx, slices.Compact(slices.Sorted(slices.Values(pks))), emailID, since, consistent, examine)
	if err != nil {
		return nil, false, err
	}
	var attempts []webhook.Attempt
	for _, it := range items {
		as, err := it.attempts(workspaceID, endpointID)
		if err != nil {
			return nil, false, err
		}
		for _, a := range as {
			if a.EmailID == emailID && !a.At.Before(since) {
				attempts = append(attempts, a)
			}
		}
	}
	return attempts, complete, nil
}

// attemptsInFlight partitions are read at once.
const attemptsInFlight = 8

// attemptsFrom reads the items of partitions pks with a sort key at or
// after since (a batch item's is its newest attempt: one with an attempt
// at or after since is there), those naming emailID when it is not "",
// examining at most examine items over all of them, shared equally (at
// least one each); complete says every partition was read to its end.
func (s *Webhooks) attemptsFrom(ctx context.Context, pks []string, emailID string, since time.Time, consistent bool, examine int) ([]attemptItem, bool, error) {
	share := max((examine+len(pks)-1)/len(pks), 1)
	found := make([][]attemptItem, len(pks))
	done := make([]bool, len(pks))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(attemptsInFlight)
	for i, pk := range pks {
		g.Go(func() error {
			in, err := attemptsQuery(s.Name, pk, emailID, since)
			if err != nil {
				return err
			}
			in.ConsistentRead = aws.Bool(consistent)
			found[i], done[i], err = s.queryExamining(gctx, in, share)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, false, err
	}
	return slices.Concat(found...), !slices.Contains(done, false), nil
}

func attemptsQuery(table, pk, emailID string, since time.Time) (*dynamodb.QueryInput, error) {
	b := expression.NewBuilder().WithKeyCondition(expression.Key(schema.AttrPK).Equal(expression.Value(pk)).
		And(expression.Key(schema.AttrSK).GreaterThanEqual(expression.Value(dynamo.TimeKey(since)))))
	if emailID != "" {
		b = b.WithFilter(expression.Or(
			expression.Name("email_ids").Contains(idBytes(emailID)),
			expression.Name("email_id").Equal(expression.Value(emailID)),
		))
	}
	expr, err := b.Build()
	if err != nil {
		return nil, err
	}
	return &dynamodb.QueryInput{
		TableName: &table, KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}, nil
}

// queryExamining pages through in until its end (done) or examine items
// examined (Limit counts items before the filter).
func (s *Webhooks) queryExamining(ctx context.Context, in *dynamodb.QueryInput, examine int) ([]attemptItem, bool, error) {
	var out []attemptItem
	for examined := 0; examined < examine; {
		in.Limit = aws.Int32(int32(min(examine-examined, 1000)))
		page, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, false, err
		}
		var items []attemptItem
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
			return nil, false, err
		}
		out = append(out, items...)
		if len(page.LastEvaluatedKey) == 0 {
			return out, true, nil
		}
		examined += max(int(page.ScannedCount), 1)
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	return out, false, nil
}
