package workspacedb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

type SenderItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	ID          string    `dynamodbav:"id"`
	WorkspaceID string    `dynamodbav:"workspace_id"`
	Name        string    `dynamodbav:"name"`
	Email       string    `dynamodbav:"email"`
	ReplyTo     []string  `dynamodbav:"reply_to,omitempty"`
	CreatedAt   time.Time `dynamodbav:"created_at"`
}

func (it SenderItem) Sender() identity.Sender {
	return identity.Sender{
		ID: it.ID, WorkspaceID: it.WorkspaceID, Name: it.Name, Email: it.Email,
		ReplyTo: it.ReplyTo, CreatedAt: it.CreatedAt,
	}
}

// AddSender stores a sender of the workspace; makeDefault also makes it
// the workspace default sender.
func (s *Senders) AddSender(ctx context.Context, workspaceID string, sender identity.Sender, makeDefault bool) (identity.Sender, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return identity.Sender{}, err
	}
	it := SenderItem{
		PK: dynamo.SenderPK(workspaceID), SK: id.String(), ID: id.String(), WorkspaceID: workspaceID,
		Name: sender.Name, Email: sender.Email, ReplyTo: sender.ReplyTo, CreatedAt: s.Time().UTC(),
	}
	put, err := s.PutOf(it, dynamo.NoCondition)
	if err != nil {
		return identity.Sender{}, err
	}
	wsUpdate := expression.Set(expression.Name("updated_at"), expression.Value(s.Time().UTC()))
	if makeDefault {
		// A copy on the workspace lets a send read it with the workspace.
		wsUpdate = wsUpdate.Set(expression.Name("default_sender"), expression.Value(it))
	}
	u, err := s.UpdateOf(dynamo.WorkspaceKey(workspaceID), wsUpdate, dynamo.ItemExists())
	if err != nil {
		return identity.Sender{}, err
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		{Put: put}, {Update: u},
	}})
	if dynamo.IsTransactionConditionFailed(err) {
		return identity.Sender{}, workspace.ErrNotFound
	}
	if err != nil {
		return identity.Sender{}, fmt.Errorf("add sender: %w", err)
	}
	return it.Sender(), nil
}

// GetSender reads one sender of the workspace.
func (s *Senders) GetSender(ctx context.Context, workspaceID, id string) (identity.Sender, error) {
	return dynamo.GetAs(ctx, s.Table, "sender", dynamo.Key(dynamo.SenderPK(workspaceID), id), SenderItem.Sender, identity.ErrSenderNotFound)
}

// ListSenders returns the workspace's senders, oldest first.
func (s *Senders) ListSenders(ctx context.Context, workspaceID string) ([]identity.Sender, error) {
	return dynamo.ListAs(ctx, s.Table, "senders", dynamo.SenderPK(workspaceID), SenderItem.Sender)
}

// DefaultSender is the workspace's default sender, nil when it has none;
// Workspace.ErrNotFound for an absent workspace.
func (s *Senders) DefaultSender(ctx context.Context, workspaceID string) (*identity.Sender, error) {
	ws, err := (&Workspaces{s.Table}).GetWorkspace(ctx, workspaceID)
	return ws.DefaultSender, err
}
