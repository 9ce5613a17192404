package webhookdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/workspace"
)

type webhookItem struct {
	PK          string `dynamodbav:"pk"`
	SK          string `dynamodbav:"sk"`
	ID          string `dynamodbav:"id"`
	WorkspaceID string `dynamodbav:"workspace_id"`
	URL         string `dynamodbav:"url"`
	Secret      string `dynamodbav:"secret"`
	// PreviousSecret signs beside Secret until PreviousUntilMS (Unix
	// milliseconds), after a rotation.
	PreviousSecret  string    `dynamodbav:"previous_secret,omitempty"`
	PreviousUntilMS int64     `dynamodbav:"previous_secret_until_ms,omitempty"`
	Events          []string  `dynamodbav:"events,omitempty"`
	Enabled         bool      `dynamodbav:"enabled"`
	DisabledReason  string    `dynamodbav:"disabled_reason,omitempty"`
	CreatedAt       time.Time `dynamodbav:"created_at"`
	// LastSuccessMS is Unix milliseconds, a number so that a condition can
	// compare it.
	LastSuccessMS       int64 `dynamodbav:"last_success_ms,omitempty"`
	ConsecutiveFailures int   `dynamodbav:"consecutive_failures"`
}

func (it webhookItem) endpoint() webhook.Endpoint {
	ep := webhook.Endpoint{
		ID: it.ID, WorkspaceID: it.WorkspaceID, URL: it.URL, Secret: it.Secret,
		Enabled: it.Enabled, DisabledReason: it.DisabledReason, CreatedAt: it.CreatedAt,
		ConsecutiveFailures: it.ConsecutiveFailures,
	}
	for _, t := range it.Events {
		ep.Events = append(ep.Events, event.Type(t))
	}
	if it.LastSuccessMS > 0 {
		t := time.UnixMilli(it.LastSuccessMS).UTC()
		ep.LastSuccessAt = &t
	}
	if it.PreviousSecret != "" {
		ep.PreviousSecret = it.PreviousSecret
		t := time.UnixMilli(it.PreviousUntilMS).UTC()
		ep.PreviousSecretUntil = &t
	}
	return ep
}

type webhookAttemptItem struct {
	PK         string `dynamodbav:"pk"`
	SK         string `dynamodbav:"sk"`
	EndpointID string `dynamodbav:"endpoint_id"`
	EventID    string `dynamodbav:"event_id"`
	EventType  string `dynamodbav:"event_type"`
	// EmailID is the event's email, what an email's deliveries are found
	// by (EmailAttempts): an attribute of the one attempt item, not an
	// item or an index of its own, which would cost a write each.
	EmailID    string    `dynamodbav:"email_id,omitempty"`
	Number     int       `dynamodbav:"attempt"`
	At         time.Time `dynamodbav:"at"`
	StatusCode int       `dynamodbav:"status_code"`
	LatencyMS  int64     `dynamodbav:"latency_ms"`
	Error      string    `dynamodbav:"error,omitempty"`
	ExpiresAt  int64     `dynamodbav:"expires_at"`
}

// CreateEndpoint stores a new endpoint of an existing workspace
// (workspace.ErrNotFound otherwise).
func (s *Webhooks) CreateEndpoint(ctx context.Context, ep webhook.Endpoint) error {
	it := webhookItem{
		PK: dynamo.WebhookPK(ep.WorkspaceID), SK: ep.ID, ID: ep.ID, WorkspaceID: ep.WorkspaceID,
		URL: ep.URL, Secret: ep.Secret, Enabled: ep.Enabled, DisabledReason: ep.DisabledReason,
		CreatedAt: ep.CreatedAt.UTC(), ConsecutiveFailures: ep.ConsecutiveFailures,
	}
	for _, t := range ep.Events {
		it.Events = append(it.Events, string(t))
	}
	wsCheck, err := s.WorkspaceCheck(ep.WorkspaceID)
	if err != nil {
		return err
	}
	put, err := s.PutOf(it, dynamo.ItemAbsent())
	if err != nil {
		return err
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		wsCheck, {Put: put},
	}})
	if dynamo.IsTransactionConditionFailed(err) {
		return workspace.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("create webhook endpoint: %w", err)
	}
	return nil
}

// GetEndpoint reads an endpoint, secret included.
func (s *Webhooks) GetEndpoint(ctx context.Context, workspaceID, id string) (webhook.Endpoint, error) {
	return dynamo.GetAs(ctx, s.Table, "webhook endpoint", dynamo.Key(dynamo.WebhookPK(workspaceID), id), webhookItem.endpoint, webhook.ErrEndpointNotFound)
}

// ListEndpoints returns the workspace's endpoints, oldest first.
func (s *Webhooks) ListEndpoints(ctx context.Context, workspaceID string) ([]webhook.Endpoint, error) {
	return dynamo.ListAs(ctx, s.Table, "webhook endpoints", dynamo.WebhookPK(workspaceID), webhookItem.endpoint)
}

// updateEndpoint applies update to an existing endpoint and returns it.
func (s *Webhooks) updateEndpoint(ctx context.Context, workspaceID, id string, update expression.UpdateBuilder, cond expression.ConditionBuilder) (webhook.Endpoint, error) {
	var it webhookItem
	if err := s.UpdateItem(ctx, dynamo.Key(dynamo.WebhookPK(workspaceID), id), update, cond, &it); err != nil {
		return webhook.Endpoint{}, err
	}
	return it.endpoint(), nil
}

// SetEndpointEnabled enables an endpoint (clearing its failure count and
// disabled reason) or disables it with reason.
func (s *Webhooks) SetEndpointEnabled(ctx context.Context, workspaceID, id string, enabled bool, reason string) (webhook.Endpoint, error) {
	update := expression.Set(expression.Name("enabled"), expression.Value(enabled))
	if enabled {
		update = update.Set(expression.Name("consecutive_failures"), expression.Value(0)).
			Remove(expression.Name("disabled_reason"))
	} else {
		update = update.Set(expression.Name("disabled_reason"), expression.Value(reason))
	}
	ep, err := s.updateEndpoint(ctx, workspaceID, id, update, dynamo.ItemExists())
	if dynamo.IsConditionFailed(err) {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	if err != nil {
		return webhook.Endpoint{}, fmt.Errorf("update webhook endpoint: %w", err)
	}
	return ep, nil
}

// RotateEndpointSecret makes secret the endpoint's signing secret and
// keeps the one in use until now signing beside it until previousUntil, in
// one conditional write (the old value is read by the write itself, so two
// rotations at once cannot lose a secret that signed). A secret left from
// an earlier rotation is replaced. ErrEndpointNotFound when the workspace
// has no such endpoint.
func (s *Webhooks) RotateEndpointSecret(ctx context.Context, workspaceID, id, secret string, previousUntil time.Time) (webhook.Endpoint, error) {
	update := expression.Set(expression.Name("previous_secret"), expression.Name("secret")).
		Set(expression.Name("secret"), expression.Value(secret)).
		Set(expression.Name("previous_secret_until_ms"), expression.Value(previousUntil.UnixMilli()))
	ep, err := s.updateEndpoint(ctx, workspaceID, id, update, dynamo.ItemExists())
	if dynamo.IsConditionFailed(err) {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	if err != nil {
		return webhook.Endpoint{}, fmt.Errorf("rotate webhook secret: %w", err)
	}
	return ep, nil
}

// DeleteEndpoint removes an endpoint; its queued jobs are then dropped and
// its records expire.
func (s *Webhooks) DeleteEndpoint(ctx context.Context, workspaceID, id string) error {
	found, err := s.DeleteExisting(ctx, dynamo.Key(dynamo.WebhookPK(workspaceID), id))
	if err != nil {
		return fmt.Errorf("delete webhook endpoint: %w", err)
	}
	if !found {
		return webhook.ErrEndpointNotFound
	}
	return nil
}

// EndpointSucceeded resets the endpoint's failure count and records its
// last success; a removed endpoint is left removed.
func (s *Webhooks) EndpointSucceeded(ctx context.Context, workspaceID, id string, at time.Time) error {
	update := expression.Set(expression.Name("consecutive_failures"), expression.Value(0)).
		Set(expression.Name("last_success_ms"), expression.Value(at.UnixMilli()))
	_, err := s.updateEndpoint(ctx, workspaceID, id, update, dynamo.ItemExists())
	if err != nil && !dynamo.IsConditionFailed(err) {
		return fmt.Errorf("record webhook success: %w", err)
	}
	return nil
}

// EndpointFailed counts a failed attempt; a removed endpoint is left
// removed.
func (s *Webhooks) EndpointFailed(ctx context.Context, workspaceID, id string) error {
	update := expression.Add(expression.Name("consecutive_failures"), expression.Value(1))
	_, err := s.updateEndpoint(ctx, workspaceID, id, update, dynamo.ItemExists())
	if err != nil && !dynamo.IsConditionFailed(err) {
		return fmt.Errorf("record webhook failure: %w", err)
	}
	return nil
}

// DisableFailingEndpoint disables an enabled endpoint with reason unless
// it succeeded at or after since, in one conditional write; it reports
// whether it disabled it.
func (s *Webhooks) DisableFailingEndpoint(ctx context.Context, workspaceID, id, reason string, since time.Time) (bool, error) {
	update := expression.Set(expression.Name("enabled"), expression.Value(false)).
		Set(expression.Name("disabled_reason"), expression.Value(reason))
	cond := expression.Name("enabled").Equal(expression.Value(true)).And(expression.Or(
		expression.AttributeNotExists(expression.Name("last_success_ms")),
		expression.Name("last_success_ms").LessThan(expression.Value(since.UnixMilli())),
	))
	_, err := s.updateEndpoint(ctx, workspaceID, id, update, cond)
	if dynamo.IsConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("disable webhook endpoint: %w", err)
	}
	return true, nil
}

// deliveredScan bounds the attempts DeliveredSince examines (about 250
// read units at most): past it a duplicate job is delivered again, which
// at-least-once delivery allows.
const deliveredScan = 5000

// DeliveredSince reports whether the endpoint's attempt log has a 2xx
// attempt of the event at or after since, read consistently in the
// email's shard (a job of an event delivered before the shards may be
// delivered again, as at-least-once allows).
func (s *Webhooks) DeliveredSince(ctx context.Context, workspaceID, endpointID, emailID, eventID string, since time.Time) (bool, error) {
	keyCond := expression.Key(schema.AttrPK).Equal(expression.Value(dynamo.WebhookAttemptPK(workspaceID, endpointID, emailID))).
		And(expression.Key(schema.AttrSK).GreaterThanEqual(expression.Value(dynamo.TimeKey(since))))
	filter := expression.Name("event_id").Equal(expression.Value(eventID)).
		And(expression.Name("status_code").Between(expression.Value(200), expression.Value(299))).
		And(expression.AttributeNotExists(expression.Name("error")))
	expr, err := expression.NewBuilder().WithKeyCondition(keyCond).WithFilter(filter).Build()
	if err != nil {
		return false, err
	}
	p := dynamodb.NewQueryPaginator(s.DB, &dynamodb.QueryInput{
		TableName: &s.Name, KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ConsistentRead: aws.Bool(true), Limit: aws.Int32(1000),
	})
	for examined := 0; p.HasMorePages() && examined < deliveredScan; {
		page, err := p.NextPage(ctx)
		if err != nil {
			return false, fmt.Errorf("find webhook delivery: %w", err)
		}
		if len(page.Items) > 0 {
			return true, nil
		}
		examined += int(page.ScannedCount)
	}
	return false, nil
}

// RecordAttempt adds an attempt to the endpoint's delivery log.
func (s *Webhooks) RecordAttempt(ctx context.Context, a webhook.Attempt) error {
	at := a.At.UTC()
	err := s.PutItem(ctx, webhookAttemptItem{
		PK: dynamo.WebhookAttemptPK(a.WorkspaceID, a.EndpointID, a.EmailID), SK: dynamo.TimeKey(at) + "#" + a.EventID,
		EndpointID: a.EndpointID, EventID: a.EventID, EventType: string(a.EventType), EmailID: a.EmailID, Number: a.Number,
		At: at, StatusCode: a.StatusCode, LatencyMS: a.LatencyMS, Error: a.Error,
		ExpiresAt: at.Add(webhook.RecordTTL).Unix(),
	}, dynamo.NoCondition)
	if err != nil {
		return fmt.Errorf("record webhook attempt: %w", err)
	}
	return nil
}

// ListAttempts returns up to limit attempts of an endpoint, newest first:
// the log's shards (and the layout before them) merged by time.
func (s *Webhooks) ListAttempts(ctx context.Context, workspaceID, endpointID string, limit int) ([]webhook.Attempt, error) {
	items, _, _, err := dynamo.MergedPage[webhookAttemptItem](ctx, s.Table, dynamo.WebhookAttemptShardPKs(workspaceID, endpointID), "", max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("list webhook attempts: %w", err)
	}
	out := make([]webhook.Attempt, 0, len(items))
	for _, it := range items {
		out = append(out, it.attempt(workspaceID))
	}
	return out, nil
}

func (it webhookAttemptItem) SortKey() string { return it.SK }

func (it webhookAttemptItem) attempt(workspaceID string) webhook.Attempt {
	return webhook.Attempt{
		WorkspaceID: workspaceID, EndpointID: it.EndpointID, EventID: it.EventID,
		EventType: event.Type(it.EventType), EmailID: it.EmailID, Number: it.Number, At: it.At,
		StatusCode: it.StatusCode, LatencyMS: it.LatencyMS, Error: it.Error,
	}
}

// EmailAttempts returns the endpoint's attempts of the email's events
// made at or after since (the email's sending), oldest first: those in
// the email's shard of the log, then those the layout before the shards
// kept. It examines at most examine attempts of each (any email's) and
// reports whether it read them all (complete): the attempts of an email
// follow its sending closely, so the first ones examined are where they
// are.
func (s *Webhooks) EmailAttempts(ctx context.Context, workspaceID, endpointID, emailID string, since time.Time, examine int) (attempts []webhook.Attempt, complete bool, err error) {
	complete = true
	var items []webhookAttemptItem
	for _, pk := range []string{dynamo.WebhookAttemptPK(workspaceID, endpointID, emailID), dynamo.WSSubPK(workspaceID, dynamo.KindWebhookAttempt, endpointID)} {
		found, done, err := s.emailAttempts(ctx, pk, emailID, since, examine)
		if err != nil {
			return nil, false, err
		}
		items, complete = append(items, found...), complete && done
	}
	slices.SortFunc(items, func(a, b webhookAttemptItem) int { return strings.Compare(a.SK, b.SK) })
	for _, it := range items {
		attempts = append(attempts, it.attempt(workspaceID))
	}
	return attempts, complete, nil
}

// emailAttempts reads the email's attempts in one partition of the log,
// examining at most examine.
func (s *Webhooks) emailAttempts(ctx context.Context, pk, emailID string, since time.Time, examine int) ([]webhookAttemptItem, bool, error) {
	keyCond := expression.Key(schema.AttrPK).Equal(expression.Value(pk)).
		And(expression.Key(schema.AttrSK).GreaterThanEqual(expression.Value(dynamo.TimeKey(since))))
	filter := expression.Name("email_id").Equal(expression.Value(emailID))
	expr, err := expression.NewBuilder().WithKeyCondition(keyCond).WithFilter(filter).Build()
	if err != nil {
		return nil, false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	var out []webhookAttemptItem
	for examined := 0; examined < examine; {
		// Limit bounds the items examined, before the filter.
		in.Limit = aws.Int32(int32(min(examine-examined, 1000)))
		page, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, false, fmt.Errorf("find email webhook attempts: %w", err)
		}
		var items []webhookAttemptItem
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
