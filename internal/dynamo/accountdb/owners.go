package accountdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// ownerItem is one owner, written twice: in its workspace (listed there)
// and under its address (looked up by sign-in).
type ownerItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	Address     string    `dynamodbav:"address"`
	WorkspaceID string    `dynamodbav:"workspace_id"`
	AddedAt     time.Time `dynamodbav:"added_at"`
}

func (it ownerItem) owner() account.Owner {
	return account.Owner{Address: it.Address, WorkspaceID: it.WorkspaceID, AddedAt: it.AddedAt}
}

// AddOwner records o in its workspace and under its address, in one
// transaction with the check that the workspace exists.
func (s *Owners) AddOwner(ctx context.Context, o account.Owner) error {
	wsCheck, err := s.WorkspaceCheck(o.WorkspaceID)
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{wsCheck}
	for _, pk := range []struct{ pk, sk string }{{dynamo.OwnersPK(o.WorkspaceID), o.Address}, {dynamo.OwnerLookupPK(o.Address), o.WorkspaceID}} {
		p, err := s.PutOf(ownerItem{PK: pk.pk, SK: pk.sk, Address: o.Address, WorkspaceID: o.WorkspaceID, AddedAt: o.AddedAt}, dynamo.NoCondition)
		if err != nil {
			return err
		}
		items = append(items, ddbtypes.TransactWriteItem{Put: p})
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if dynamo.IsTransactionConditionFailed(err) {
		return workspace.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("add owner: %w", err)
	}
	return nil
}

// RemoveOwner deletes both records of an owner; account.ErrOwnerNotFound
// when the address does not own the workspace.
func (s *Owners) RemoveOwner(ctx context.Context, workspaceID, address string) error {
	inWS, err := s.DeleteOf(dynamo.Key(dynamo.OwnersPK(workspaceID), address), dynamo.ItemExists())
	if err != nil {
		return err
	}
	lookup := &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(dynamo.OwnerLookupPK(address), workspaceID)}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{{Delete: inWS}, {Delete: lookup}}})
	if dynamo.IsTransactionConditionFailed(err) {
		return account.ErrOwnerNotFound
	}
	if err != nil {
		return fmt.Errorf("remove owner: %w", err)
	}
	return nil
}

// ListOwners returns the workspace's owners by address.
func (s *Owners) ListOwners(ctx context.Context, workspaceID string) ([]account.Owner, error) {
	return dynamo.ListAs(ctx, s.Table, "owners", dynamo.OwnersPK(workspaceID), ownerItem.owner)
}

// WorkspacesOf returns the ids of the workspaces address owns.
func (s *Owners) WorkspacesOf(ctx context.Context, address string) ([]string, error) {
	owners, err := dynamo.ListAs(ctx, s.Table, "owner workspaces", dynamo.OwnerLookupPK(address), ownerItem.owner)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(owners))
	for i, o := range owners {
		out[i] = o.WorkspaceID
	}
	return out, nil
}

type auditItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	WorkspaceID string    `dynamodbav:"workspace_id"`
	Actor       string    `dynamodbav:"actor"`
	Action      string    `dynamodbav:"action"`
	Target      string    `dynamodbav:"target,omitempty"`
	At          time.Time `dynamodbav:"at"`
	Count       int       `dynamodbav:"count,omitempty"`
}

func (it auditItem) entry() account.AuditEntry {
	return account.AuditEntry{WorkspaceID: it.WorkspaceID, Actor: it.Actor, Action: it.Action, Target: it.Target, At: it.At, Count: it.Count}
}

// PutAudit appends e to its workspace's audit log.
func (s *Owners) PutAudit(ctx context.Context, e account.AuditEntry) error {
	suffix := make([]byte, 4)
	rand.Read(suffix) // never returns an error since Go 1.24
	it := auditItem{
		PK: dynamo.AuditPK(e.WorkspaceID), SK: dynamo.TimeKey(e.At) + "#" + hex.EncodeToString(suffix),
		WorkspaceID: e.WorkspaceID, Actor: e.Actor, Action: e.Action, Target: e.Target, At: e.At.UTC(),
	}
	if err := s.PutItem(ctx, it, dynamo.ItemAbsent()); err != nil {
		return fmt.Errorf("put audit entry: %w", err)
	}
	return nil
}

// ListAudit returns up to limit entries of the workspace's log, newest
// first: one reverse Query.
func (s *Owners) ListAudit(ctx context.Context, workspaceID string, limit int) ([]account.AuditEntry, error) {
	in, err := s.Partition("", schema.AttrPK, dynamo.AuditPK(workspaceID))
	if err != nil {
		return nil, err
	}
	in.ScanIndexForward = aws.Bool(false)
	in.Limit = aws.Int32(int32(limit))
	out, err := s.DB.Query(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("list audit: %w", err)
	}
	var items []auditItem
	if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
		return nil, err
	}
	entries := make([]account.AuditEntry, len(items))
	for i, it := range items {
		entries[i] = it.entry()
	}
	return entries, nil
}
