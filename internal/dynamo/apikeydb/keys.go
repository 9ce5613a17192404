package apikeydb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// rateAttrPrefix names the attribute of the API key's secret record that
// counts one rate-limit window.
const rateAttrPrefix = "rl_"

type KeySecretItem struct {
	PK          string   `dynamodbav:"pk"`
	SK          string   `dynamodbav:"sk"`
	WorkspaceID string   `dynamodbav:"workspace_id"`
	KeyID       string   `dynamodbav:"key_id"`
	Environment string   `dynamodbav:"environment"`
	Scopes      []string `dynamodbav:"scopes,omitempty"` // absent: created before scopes
	// An OAuth access token's record names its grant and expires (TTL,
	// checked by Authenticate, as TTL deletes only some time after it).
	GrantID   string `dynamodbav:"grant_id,omitempty"`
	ExpiresAt int64  `dynamodbav:"expires_at,omitempty"`
	// The connection's application and approver, for its sends' marks.
	ClientID   string `dynamodbav:"client_id,omitempty"`
	ClientName string `dynamodbav:"client_name,omitempty"`
	GrantedBy  string `dynamodbav:"granted_by,omitempty"`
}

type keyItem struct {
	PK          string     `dynamodbav:"pk"`
	SK          string     `dynamodbav:"sk"`
	ID          string     `dynamodbav:"id"`
	WorkspaceID string     `dynamodbav:"workspace_id"`
	Name        string     `dynamodbav:"name"`
	Environment string     `dynamodbav:"environment"`
	Scopes      []string   `dynamodbav:"scopes,omitempty"`
	Hint        string     `dynamodbav:"hint"`
	Hash        string     `dynamodbav:"hash,omitempty"`
	CreatedAt   time.Time  `dynamodbav:"created_at"`
	RevokedAt   *time.Time `dynamodbav:"revoked_at,omitempty"`
}

func (it keyItem) key() apikey.Key {
	return apikey.Key{
		ID: it.ID, WorkspaceID: it.WorkspaceID, Name: it.Name,
		Environment: apikey.Environment(it.Environment), Scopes: ToScopes(it.Scopes),
		Hint: it.Hint, CreatedAt: it.CreatedAt, RevokedAt: it.RevokedAt,
	}
}

func ToScopes(raw []string) []apikey.Scope {
	if raw == nil {
		return nil
	}
	out := make([]apikey.Scope, len(raw))
	for i, s := range raw {
		out[i] = apikey.Scope(s)
	}
	return out
}

func FromScopes(scopes []apikey.Scope) []string {
	if scopes == nil {
		return nil
	}
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// Authenticate looks the key up by its hash and counts the request in the
// key's per-minute window, in one conditional UpdateItem: the item must
// exist and the window's counter must be under the limit. The counter of a
// window lives in an attribute named after it; the previous one is removed.
func (s *Keys) Authenticate(ctx context.Context, apiKey string, env apikey.Environment) (apikey.Principal, error) {
	now := s.Time()
	window := now.Unix() / 60
	cur := fmt.Sprintf("%s%d", rateAttrPrefix, window)
	prev := fmt.Sprintf("%s%d", rateAttrPrefix, window-1)
	update := expression.Add(expression.Name(cur), expression.Value(1)).Remove(expression.Name(prev))
	cond := dynamo.ItemExists().And(expression.Or(
		expression.AttributeNotExists(expression.Name(cur)),
		expression.Name(cur).LessThan(expression.Value(apikey.RequestsPerMinute)),
	)).And(expression.Or(
		expression.AttributeNotExists(expression.Name(schema.AttrExpiresAt)),
		expression.Name(schema.AttrExpiresAt).GreaterThan(expression.Value(now.Unix())),
	))
	expr, err := expression.NewBuilder().WithUpdate(update).WithCondition(cond).Build()
	if err != nil {
		return apikey.Principal{}, err
	}
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           &s.Name,
		Key:                                 dynamo.Key(dynamo.APIKeySecretPK(apikey.Hash(apiKey)), dynamo.APIKeySecretSK),
		UpdateExpression:                    expr.Update(),
		ConditionExpression:                 expr.Condition(),
		ExpressionAttributeNames:            expr.Names(),
		ExpressionAttributeValues:           expr.Values(),
		ReturnValues:                        ddbtypes.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *ddbtypes.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		if len(ccf.Item) == 0 || expired(ccf.Item, now) {
			return apikey.Principal{}, apikey.ErrUnknownKey
		}
		next := time.Unix((window+1)*60, 0)
		return apikey.Principal{}, &apikey.RateLimitedError{RetryAfter: next.Sub(now)}
	}
	if err != nil {
		return apikey.Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	var it KeySecretItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return apikey.Principal{}, err
	}
	if apikey.Environment(it.Environment) != env {
		return apikey.Principal{}, apikey.ErrUnknownKey
	}
	s.pruneRateWindows(ctx, out.Attributes, cur)
	return apikey.Principal{
		WorkspaceID: it.WorkspaceID, KeyID: it.KeyID, GrantID: it.GrantID,
		ClientID: it.ClientID, ClientName: it.ClientName, GrantedBy: it.GrantedBy,
		Environment: env, Scopes: ToScopes(it.Scopes),
	}, nil
}

// expired reports whether a secret record has an expiry at or before now
// (an OAuth access token's).
func expired(item map[string]ddbtypes.AttributeValue, now time.Time) bool {
	var it KeySecretItem
	return attributevalue.UnmarshalMap(item, &it) == nil && it.ExpiresAt != 0 && it.ExpiresAt <= now.Unix()
}

// pruneRateWindows removes counters of windows older than the previous one,
// left when a key was idle for a while. It runs only when such counters
// exist, so at most once per idle gap; failing it only leaves them longer.
func (s *Keys) pruneRateWindows(ctx context.Context, item map[string]ddbtypes.AttributeValue, cur string) {
	var stale []string
	for name := range item {
		if strings.HasPrefix(name, rateAttrPrefix) && name != cur {
			stale = append(stale, name)
		}
	}
	if len(stale) == 0 {
		return
	}
	update := expression.Remove(expression.Name(stale[0]))
	for _, name := range stale[1:] {
		update = update.Remove(expression.Name(name))
	}
	_ = s.UpdateItem(ctx, dynamo.Key(aws.ToString(dynamo.StringAttr(item, schema.AttrPK)), dynamo.APIKeySecretSK), update, dynamo.NoCondition, nil)
}

// CreateKey mints a key for the workspace and returns it in plain text, the
// only time it is ever available. Scopes nil stores a key without scopes,
// as keys created before scopes existed were.
func (s *Keys) CreateKey(ctx context.Context, workspaceID string, env apikey.Environment, name string, scopes []apikey.Scope) (string, apikey.Key, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", apikey.Key{}, err
	}
	plain := apikey.Generate(env)
	meta := keyItem{
		PK: dynamo.KeysPK(workspaceID), SK: id.String(),
		ID: id.String(), WorkspaceID: workspaceID, Name: name, Environment: string(env),
		Scopes: FromScopes(scopes), Hint: apikey.Hint(plain), Hash: apikey.Hash(plain),
		CreatedAt: s.Time().UTC(),
	}
	wsCheck, err := s.WorkspaceCheck(workspaceID)
	if err != nil {
		return "", apikey.Key{}, err
	}
	puts, err := s.keyPuts(meta, dynamo.NoCondition)
	if err != nil {
		return "", apikey.Key{}, err
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append([]ddbtypes.TransactWriteItem{wsCheck}, puts...)})
	if dynamo.IsTransactionConditionFailed(err) {
		return "", apikey.Key{}, workspace.ErrNotFound
	}
	if err != nil {
		return "", apikey.Key{}, fmt.Errorf("create key: %w", err)
	}
	return plain, meta.key(), nil
}

// keyPuts writes a key's new secret record and its description, the
// latter under metaCond.
func (s *Keys) keyPuts(meta keyItem, metaCond expression.ConditionBuilder) ([]ddbtypes.TransactWriteItem, error) {
	secret, err := s.PutOf(KeySecretItem{
		PK: dynamo.APIKeySecretPK(meta.Hash), SK: dynamo.APIKeySecretSK, WorkspaceID: meta.WorkspaceID,
		KeyID: meta.ID, Environment: meta.Environment, Scopes: meta.Scopes,
	}, dynamo.ItemAbsent())
	if err != nil {
		return nil, err
	}
	desc, err := s.PutOf(meta, metaCond)
	if err != nil {
		return nil, err
	}
	return []ddbtypes.TransactWriteItem{{Put: secret}, {Put: desc}}, nil
}

// ListKeys returns the workspace's keys, oldest first, without secrets.
func (s *Keys) ListKeys(ctx context.Context, workspaceID string) ([]apikey.Key, error) {
	return dynamo.ListAs(ctx, s.Table, "keys", dynamo.KeysPK(workspaceID), keyItem.key)
}

func (s *Keys) getKeyItem(ctx context.Context, workspaceID, keyID string) (keyItem, error) {
	var it keyItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.KeysPK(workspaceID), keyID), &it)
	switch {
	case err != nil:
		return keyItem{}, fmt.Errorf("get key: %w", err)
	case !found:
		return keyItem{}, apikey.ErrKeyNotFound
	case it.RevokedAt != nil:
		return keyItem{}, apikey.ErrRevoked
	}
	return it, nil
}

// RegenerateKey replaces a key's secret: the old key stops working at once
// (its secret record is deleted in the same transaction) and the new one
// keeps the environment and scopes.
func (s *Keys) RegenerateKey(ctx context.Context, workspaceID, keyID string) (string, apikey.Key, error) {
	meta, err := s.getKeyItem(ctx, workspaceID, keyID)
	if err != nil {
		return "", apikey.Key{}, err
	}
	oldHash := meta.Hash
	plain := apikey.Generate(apikey.Environment(meta.Environment))
	meta.Hash, meta.Hint = apikey.Hash(plain), apikey.Hint(plain)
	// The description is rewritten only if no one regenerated it meanwhile.
	puts, err := s.keyPuts(meta, expression.Name("hash").Equal(expression.Value(oldHash)))
	if err != nil {
		return "", apikey.Key{}, err
	}
	items := append(puts, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{
		TableName: &s.Name, Key: dynamo.Key(dynamo.APIKeySecretPK(oldHash), dynamo.APIKeySecretSK),
	}})
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if dynamo.IsTransactionConditionFailed(err) {
		return "", apikey.Key{}, fmt.Errorf("key %s changed meanwhile; retry", keyID)
	}
	if err != nil {
		return "", apikey.Key{}, fmt.Errorf("regenerate key: %w", err)
	}
	return plain, meta.key(), nil
}

// RevokeKey deletes a key's secret record, so the key stops working at once,
// and marks its description revoked.
func (s *Keys) RevokeKey(ctx context.Context, workspaceID, keyID string) error {
	meta, err := s.getKeyItem(ctx, workspaceID, keyID)
	if err != nil {
		return err
	}
	update := expression.Set(expression.Name("revoked_at"), expression.Value(s.Time().UTC())).
		Remove(expression.Name("hash"))
	unchanged := expression.Name("hash").Equal(expression.Value(meta.Hash))
	u, err := s.UpdateOf(dynamo.Key(meta.PK, meta.SK), update, unchanged)
	if err != nil {
		return err
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		{Update: u},
		{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(dynamo.APIKeySecretPK(meta.Hash), dynamo.APIKeySecretSK)}},
	}})
	if dynamo.IsTransactionConditionFailed(err) {
		return fmt.Errorf("key %s changed meanwhile; retry", keyID)
	}
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	return nil
}
