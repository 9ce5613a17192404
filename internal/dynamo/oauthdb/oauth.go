package oauthdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/apikeydb"
	"github.com/sesame-mail/sesame/internal/oauth"
)

type oauthClientItem struct {
	PK           string    `dynamodbav:"pk"`
	SK           string    `dynamodbav:"sk"`
	Name         string    `dynamodbav:"name"`
	RedirectURIs []string  `dynamodbav:"redirect_uris"`
	CreatedAt    time.Time `dynamodbav:"created_at"`
	// ExpiresAt (TTL) is set until an owner approves the client.
	ExpiresAt int64 `dynamodbav:"expires_at,omitempty"`
}

type oauthCodeItem struct {
	PK          string   `dynamodbav:"pk"`
	SK          string   `dynamodbav:"sk"`
	ClientID    string   `dynamodbav:"client_id"`
	RedirectURI string   `dynamodbav:"redirect_uri"`
	Challenge   string   `dynamodbav:"challenge"`
	WorkspaceID string   `dynamodbav:"workspace_id"`
	Scopes      []string `dynamodbav:"scopes"`
	GrantedBy   string   `dynamodbav:"granted_by"`
	ExpiresAt   int64    `dynamodbav:"expires_at"`
	UsedAt      int64    `dynamodbav:"used_at,omitempty"`
	GrantID     string   `dynamodbav:"grant_id,omitempty"`
}

type oauthRefreshItem struct {
	PK          string `dynamodbav:"pk"`
	SK          string `dynamodbav:"sk"`
	GrantID     string `dynamodbav:"grant_id"`
	WorkspaceID string `dynamodbav:"workspace_id"`
	ExpiresAt   int64  `dynamodbav:"expires_at"`
	UsedAt      int64  `dynamodbav:"used_at,omitempty"`
}

type oauthGrantItem struct {
	PK          string     `dynamodbav:"pk"`
	SK          string     `dynamodbav:"sk"`
	WorkspaceID string     `dynamodbav:"workspace_id"`
	ClientID    string     `dynamodbav:"client_id"`
	ClientName  string     `dynamodbav:"client_name"`
	RedirectURI string     `dynamodbav:"redirect_uri"`
	Scopes      []string   `dynamodbav:"scopes"`
	GrantedBy   string     `dynamodbav:"granted_by"`
	CreatedAt   time.Time  `dynamodbav:"created_at"`
	RefreshedAt *time.Time `dynamodbav:"refreshed_at,omitempty"`
	RevokedAt   *time.Time `dynamodbav:"revoked_at,omitempty"`
	AccessHash  string     `dynamodbav:"access_hash,omitempty"`
	RefreshHash string     `dynamodbav:"refresh_hash,omitempty"`
}

func (it oauthGrantItem) grant() oauth.Grant {
	return oauth.Grant{
		ID: it.SK, WorkspaceID: it.WorkspaceID, ClientID: it.ClientID, ClientName: it.ClientName,
		RedirectURI: it.RedirectURI, Scopes: apikeydb.ToScopes(it.Scopes), GrantedBy: it.GrantedBy, CreatedAt: it.CreatedAt,
		RefreshedAt: it.RefreshedAt, RevokedAt: it.RevokedAt, AccessHash: it.AccessHash, RefreshHash: it.RefreshHash,
	}
}

func grantItemOf(g oauth.Grant) oauthGrantItem {
	return oauthGrantItem{
		PK: dynamo.OAuthGrantPK(g.WorkspaceID), SK: g.ID, WorkspaceID: g.WorkspaceID, ClientID: g.ClientID,
		ClientName: g.ClientName, RedirectURI: g.RedirectURI, Scopes: apikeydb.FromScopes(g.Scopes), GrantedBy: g.GrantedBy,
		CreatedAt: g.CreatedAt, RefreshedAt: g.RefreshedAt, RevokedAt: g.RevokedAt,
		AccessHash: g.AccessHash, RefreshHash: g.RefreshHash,
	}
}

// PutClient stores a registered client, kept until expiresAt unless an
// owner approves it.
func (s *OAuth) PutClient(ctx context.Context, c oauth.Client, expiresAt time.Time) error {
	it := oauthClientItem{PK: dynamo.OAuthClientPrefix + c.ID, SK: dynamo.OAuthClientSK, Name: c.Name, RedirectURIs: c.RedirectURIs,
		CreatedAt: c.CreatedAt, ExpiresAt: expiresAt.Unix()}
	if err := s.PutItem(ctx, it, dynamo.ItemAbsent()); err != nil {
		return fmt.Errorf("put oauth client: %w", err)
	}
	return nil
}

// GetClient reads a client; one past its expiry is not found, as TTL
// deletes only some time after it.
func (s *OAuth) GetClient(ctx context.Context, id string) (oauth.Client, error) {
	var it oauthClientItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.OAuthClientPrefix+id, dynamo.OAuthClientSK), &it)
	switch {
	case err != nil:
		return oauth.Client{}, fmt.Errorf("get oauth client: %w", err)
	case !found || it.ExpiresAt != 0 && it.ExpiresAt <= s.Time().Unix():
		return oauth.Client{}, oauth.ErrNotFound
	}
	return oauth.Client{ID: id, Name: it.Name, RedirectURIs: it.RedirectURIs, CreatedAt: it.CreatedAt}, nil
}

// PutCode stores an authorization code under its hash until it expires.
func (s *OAuth) PutCode(ctx context.Context, c oauth.Code) error {
	it := oauthCodeItem{
		PK: dynamo.OAuthCodePrefix + c.Hash, SK: dynamo.OAuthCodeSK, ClientID: c.ClientID, RedirectURI: c.RedirectURI,
		Challenge: c.Challenge, WorkspaceID: c.WorkspaceID, Scopes: apikeydb.FromScopes(c.Scopes), GrantedBy: c.GrantedBy,
		ExpiresAt: c.ExpiresAt.Unix(),
	}
	if err := s.PutItem(ctx, it, dynamo.ItemAbsent()); err != nil {
		return fmt.Errorf("put oauth code: %w", err)
	}
	return nil
}

// RedeemCode marks the code used in one conditional update, which holds
// only while it is unused and unexpired: of two uses at once, one wins.
// The loser gets the code back with Used set.
func (s *OAuth) RedeemCode(ctx context.Context, hash string, now time.Time) (oauth.Code, error) {
	cond := dynamo.ItemExists().
		And(expression.AttributeNotExists(expression.Name("used_at"))).
		And(expression.Name("expires_at").GreaterThan(expression.Value(now.Unix())))
	u, err := s.UpdateOf(dynamo.Key(dynamo.OAuthCodePrefix+hash, dynamo.OAuthCodeSK), expression.Set(expression.Name("used_at"), expression.Value(now.Unix())), cond)
	if err != nil {
		return oauth.Code{}, err
	}
	u.ReturnValuesOnConditionCheckFailure = ddbtypes.ReturnValuesOnConditionCheckFailureAllOld
	var it oauthCodeItem
	err = s.Update(ctx, u, &it)
	var ccf *ddbtypes.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		if len(ccf.Item) == 0 {
			return oauth.Code{}, oauth.ErrNotFound
		}
		if err := attributevalue.UnmarshalMap(ccf.Item, &it); err != nil {
			return oauth.Code{}, err
		}
		if it.UsedAt == 0 { // expired, never used
			return oauth.Code{}, oauth.ErrNotFound
		}
		return oauth.Code{Hash: hash, WorkspaceID: it.WorkspaceID, GrantID: it.GrantID, Used: true}, nil
	}
	if err != nil {
		return oauth.Code{}, fmt.Errorf("redeem oauth code: %w", err)
	}
	return oauth.Code{
		Hash: hash, ClientID: it.ClientID, RedirectURI: it.RedirectURI, Challenge: it.Challenge,
		WorkspaceID: it.WorkspaceID, Scopes: apikeydb.ToScopes(it.Scopes), GrantedBy: it.GrantedBy,
		ExpiresAt: time.Unix(it.ExpiresAt, 0),
	}, nil
}

// accessPut is the write of an access token as an API key's secret record
// that expires, so /api/v1 checks it as it checks a key.
func (s *OAuth) accessPut(a oauth.Access) (*ddbtypes.Put, error) {
	return s.PutOf(apikeydb.KeySecretItem{
		PK: dynamo.APIKeySecretPK(a.Hash), SK: dynamo.APIKeySecretSK, WorkspaceID: a.WorkspaceID, GrantID: a.GrantID,
		ClientID: a.ClientID, ClientName: a.ClientName, GrantedBy: a.GrantedBy,
		Environment: string(apikey.Live), Scopes: apikeydb.FromScopes(a.Scopes), ExpiresAt: a.ExpiresAt.Unix(),
	}, dynamo.ItemAbsent())
}

func (s *OAuth) refreshPut(r oauth.Refresh) (*ddbtypes.Put, error) {
	return s.PutOf(oauthRefreshItem{
		PK: dynamo.OAuthRefreshPrefix + r.Hash, SK: dynamo.OAuthRefreshSK, GrantID: r.GrantID,
		WorkspaceID: r.WorkspaceID, ExpiresAt: r.ExpiresAt.Unix(),
	}, dynamo.ItemAbsent())
}

// CreateGrant writes the grant, its tokens, the grant's id on the code and
// keeps the client, in one transaction.
func (s *OAuth) CreateGrant(ctx context.Context, g oauth.Grant, codeHash string, a oauth.Access, r oauth.Refresh) error {
	grant, err := s.PutOf(grantItemOf(g), dynamo.ItemAbsent())
	if err != nil {
		return err
	}
	access, err := s.accessPut(a)
	if err != nil {
		return err
	}
	refresh, err := s.refreshPut(r)
	if err != nil {
		return err
	}
	code, err := s.UpdateOf(dynamo.Key(dynamo.OAuthCodePrefix+codeHash, dynamo.OAuthCodeSK), expression.Set(expression.Name("grant_id"), expression.Value(g.ID)), dynamo.ItemExists())
	if err != nil {
		return err
	}
	client, err := s.UpdateOf(dynamo.Key(dynamo.OAuthClientPrefix+g.ClientID, dynamo.OAuthClientSK), expression.Remove(expression.Name("expires_at")), dynamo.ItemExists())
	if err != nil {
		return err
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		{Put: grant}, {Put: access}, {Put: refresh}, {Update: code}, {Update: client},
	}})
	if err != nil {
		return fmt.Errorf("create oauth grant: %w", err)
	}
	return nil
}

// GetRefresh reads a refresh token's record; an expired one is not found.
func (s *OAuth) GetRefresh(ctx context.Context, hash string) (oauth.Refresh, error) {
	var it oauthRefreshItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.OAuthRefreshPrefix+hash, dynamo.OAuthRefreshSK), &it)
	switch {
	case err != nil:
		return oauth.Refresh{}, fmt.Errorf("get oauth refresh: %w", err)
	case !found || it.ExpiresAt <= s.Time().Unix():
		return oauth.Refresh{}, oauth.ErrNotFound
	}
	return oauth.Refresh{Hash: hash, GrantID: it.GrantID, WorkspaceID: it.WorkspaceID,
		ExpiresAt: time.Unix(it.ExpiresAt, 0), Used: it.UsedAt != 0}, nil
}

// GetGrant reads a grant of the workspace.
func (s *OAuth) GetGrant(ctx context.Context, workspaceID, id string) (oauth.Grant, error) {
	return dynamo.GetAs(ctx, s.Table, "oauth grant", dynamo.Key(dynamo.OAuthGrantPK(workspaceID), id), oauthGrantItem.grant, oauth.ErrNotFound)
}

// Rotate replaces the grant's tokens in one transaction: the old refresh
// token is marked used (kept, so a replay is recognised), the old access
// token deleted, the new ones written, under the condition that the grant
// still names old as its live refresh token and is not revoked.
func (s *OAuth) Rotate(ctx context.Context, g oauth.Grant, old oauth.Refresh, a oauth.Access, r oauth.Refresh, now time.Time) error {
	grantUpdate := expression.Set(expression.Name("access_hash"), expression.Value(a.Hash)).
		Set(expression.Name("refresh_hash"), expression.Value(r.Hash)).
		Set(expression.Name("refreshed_at"), expression.Value(now)).
		Set(expression.Name("scopes"), expression.Value(apikeydb.FromScopes(a.Scopes)))
	grantCond := expression.Name("refresh_hash").Equal(expression.Value(old.Hash)).
		And(expression.AttributeNotExists(expression.Name("revoked_at")))
	grant, err := s.UpdateOf(dynamo.Key(dynamo.OAuthGrantPK(g.WorkspaceID), g.ID), grantUpdate, grantCond)
	if err != nil {
		return err
	}
	used, err := s.UpdateOf(dynamo.Key(dynamo.OAuthRefreshPrefix+old.Hash, dynamo.OAuthRefreshSK),
		expression.Set(expression.Name("used_at"), expression.Value(now.Unix())),
		dynamo.ItemExists().And(expression.AttributeNotExists(expression.Name("used_at"))))
	if err != nil {
		return err
	}
	access, err := s.accessPut(a)
	if err != nil {
		return err
	}
	refresh, err := s.refreshPut(r)
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{{Update: grant}, {Update: used}, {Put: access}, {Put: refresh}}
	if g.AccessHash != "" {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(dynamo.APIKeySecretPK(g.AccessHash), dynamo.APIKeySecretSK)}})
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if dynamo.IsTransactionConditionFailed(err) {
		return oauth.ErrStale
	}
	if err != nil {
		return fmt.Errorf("rotate oauth tokens: %w", err)
	}
	return nil
}

// Revoke marks the grant revoked and deletes its live access token and
// refresh token, in one transaction: both stop working at once.
func (s *OAuth) Revoke(ctx context.Context, g oauth.Grant, now time.Time) error {
	mark, err := s.UpdateOf(dynamo.Key(dynamo.OAuthGrantPK(g.WorkspaceID), g.ID),
		expression.Set(expression.Name("revoked_at"), expression.Value(now)).
			Remove(expression.Name("access_hash")).Remove(expression.Name("refresh_hash")),
		dynamo.ItemExists())
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{{Update: mark}}
	if g.AccessHash != "" {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(dynamo.APIKeySecretPK(g.AccessHash), dynamo.APIKeySecretSK)}})
	}
	if g.RefreshHash != "" {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(dynamo.OAuthRefreshPrefix+g.RefreshHash, dynamo.OAuthRefreshSK)}})
	}
	if _, err := s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		return fmt.Errorf("revoke oauth grant: %w", err)
	}
	return nil
}

// ListGrants returns the workspace's grants, newest first (ids are
// UUIDv7).
func (s *OAuth) ListGrants(ctx context.Context, workspaceID string) ([]oauth.Grant, error) {
	gs, err := dynamo.ListAs(ctx, s.Table, "oauth grants", dynamo.OAuthGrantPK(workspaceID), oauthGrantItem.grant)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(gs)-1; i < j; i, j = i+1, j-1 {
		gs[i], gs[j] = gs[j], gs[i]
	}
	return gs, nil
}
