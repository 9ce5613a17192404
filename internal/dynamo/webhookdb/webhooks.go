package webhookdb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
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
