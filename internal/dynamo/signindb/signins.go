package signindb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/signin"
)

// The sort keys of the sign-in items, one item per partition.
const (
	signinLinkSK = "LINK"
	sessionSK    = "SESSION"
)

type signinLinkItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Address   string `dynamodbav:"address"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

type sessionItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	Address     string    `dynamodbav:"address"`
	WorkspaceID string    `dynamodbav:"workspace_id,omitempty"`
	CreatedAt   time.Time `dynamodbav:"created_at"`
	LastSeen    time.Time `dynamodbav:"last_seen"`
	// ExpiresAt (TTL) is the idle expiry; a read checks LastSeen itself,
	// as TTL deletes only some time after it.
	ExpiresAt int64 `dynamodbav:"expires_at"`
}

func (it sessionItem) session(hash string) signin.Session {
	return signin.Session{Hash: hash, Address: it.Address, WorkspaceID: it.WorkspaceID, CreatedAt: it.CreatedAt, LastSeen: it.LastSeen}
}

type signinRateItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Count     int    `dynamodbav:"count"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// PutLink stores a pending link under its token's hash until it expires.
func (s *SignIns) PutLink(ctx context.Context, tokenHash string, l signin.Link) error {
	it := signinLinkItem{PK: dynamo.SigninLinkPrefix + tokenHash, SK: signinLinkSK, Address: l.Address, ExpiresAt: l.ExpiresAt.Unix()}
	if err := s.PutItem(ctx, it, dynamo.ItemAbsent()); err != nil {
		return fmt.Errorf("put sign-in link: %w", err)
	}
	return nil
}

// ConsumeLink deletes the link in one conditional delete, which holds only
// while it is there and unexpired: of two uses at once, one wins.
func (s *SignIns) ConsumeLink(ctx context.Context, tokenHash string, now time.Time) (signin.Link, error) {
	d, err := s.DeleteOf(dynamo.Key(dynamo.SigninLinkPrefix+tokenHash, signinLinkSK),
		dynamo.ItemExists().And(expression.Name(schema.AttrExpiresAt).GreaterThan(expression.Value(now.Unix()))))
	if err != nil {
		return signin.Link{}, err
	}
	var it signinLinkItem
	err = s.Remove(ctx, d, &it)
	if dynamo.IsConditionFailed(err) {
		return signin.Link{}, signin.ErrLinkInvalid
	}
	if err != nil {
		return signin.Link{}, fmt.Errorf("consume sign-in link: %w", err)
	}
	return signin.Link{Address: it.Address, ExpiresAt: time.Unix(it.ExpiresAt, 0).UTC()}, nil
}

// CountRequest adds one to who's count of the window and returns it; the
// counter expires with the window after next.
func (s *SignIns) CountRequest(ctx context.Context, who string, windowStart time.Time) (int, error) {
	update := expression.Add(expression.Name("count"), expression.Value(1)).
		Set(expression.Name(schema.AttrExpiresAt), expression.Value(windowStart.Add(2*signin.RateWindow).Unix()))
	var after signinRateItem
	if err := s.UpdateItem(ctx, dynamo.Key(dynamo.SigninRatePrefix+who, dynamo.TimeKey(windowStart)), update, dynamo.NoCondition, &after); err != nil {
		return 0, fmt.Errorf("count sign-in request: %w", err)
	}
	return after.Count, nil
}

// PutSession stores a new session under its id's hash.
func (s *SignIns) PutSession(ctx context.Context, sess signin.Session) error {
	it := sessionItem{
		PK: dynamo.SessionPrefix + sess.Hash, SK: sessionSK, Address: sess.Address, WorkspaceID: sess.WorkspaceID,
		CreatedAt: sess.CreatedAt.UTC(), LastSeen: sess.LastSeen.UTC(), ExpiresAt: sess.ExpiresAt().Unix(),
	}
	if err := s.PutItem(ctx, it, dynamo.ItemAbsent()); err != nil {
		return fmt.Errorf("put session: %w", err)
	}
	return nil
}

// GetSession returns the session of hash, signin.ErrNoSession when none.
func (s *SignIns) GetSession(ctx context.Context, hash string) (signin.Session, error) {
	return dynamo.GetAs(ctx, s.Table, "session", dynamo.Key(dynamo.SessionPrefix+hash, sessionSK),
		func(it sessionItem) signin.Session { return it.session(hash) }, signin.ErrNoSession)
}

// TouchSession records a use of a session still there.
func (s *SignIns) TouchSession(ctx context.Context, hash string, lastSeen time.Time) error {
	update := expression.Set(expression.Name("last_seen"), expression.Value(lastSeen.UTC())).
		Set(expression.Name(schema.AttrExpiresAt), expression.Value(lastSeen.Add(signin.SessionIdle).Unix()))
	return s.sessionUpdate(ctx, hash, update)
}

// SetSessionWorkspace sets the workspace a session acts in.
func (s *SignIns) SetSessionWorkspace(ctx context.Context, hash, workspaceID string) error {
	return s.sessionUpdate(ctx, hash, expression.Set(expression.Name("workspace_id"), expression.Value(workspaceID)))
}

func (s *SignIns) sessionUpdate(ctx context.Context, hash string, update expression.UpdateBuilder) error {
	err := s.UpdateItem(ctx, dynamo.Key(dynamo.SessionPrefix+hash, sessionSK), update, dynamo.ItemExists(), nil)
	if dynamo.IsConditionFailed(err) {
		return signin.ErrNoSession // signed out meanwhile
	}
	if err != nil {
		return fmt.Errorf("update session: %w", err)
	}
	return nil
}

// DeleteSession ends a session; one already gone is no error.
func (s *SignIns) DeleteSession(ctx context.Context, hash string) error {
	if _, err := s.DeleteExisting(ctx, dynamo.Key(dynamo.SessionPrefix+hash, sessionSK)); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}
