package workspacedb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

type WorkspaceItem struct {
	PK                     string      `dynamodbav:"pk"`
	SK                     string      `dynamodbav:"sk"`
	GSI1PK                 string      `dynamodbav:"gsi1pk"`
	GSI1SK                 string      `dynamodbav:"gsi1sk"`
	ID                     string      `dynamodbav:"id"`
	Name                   string      `dynamodbav:"name"`
	CreatedAt              time.Time   `dynamodbav:"created_at"`
	VerifiedDomains        []string    `dynamodbav:"verified_domains,stringset,omitempty"`
	DefaultSender          *SenderItem `dynamodbav:"default_sender,omitempty"`
	DefaultTracking        string      `dynamodbav:"default_tracking,omitempty"`
	TrackingOffProvisioned bool        `dynamodbav:"tracking_off_provisioned,omitempty"`
	MonthlyAllowance       int         `dynamodbav:"monthly_allowance,omitempty"`
	Brands                 []string    `dynamodbav:"brands,omitempty"`
	PostalAddress          string      `dynamodbav:"postal_address,omitempty"`
	BulkApproved           bool        `dynamodbav:"bulk_approved,omitempty"`
}

func (it WorkspaceItem) Workspace() workspace.Workspace {
	return workspace.Workspace{
		ID: it.ID, Name: it.Name, CreatedAt: it.CreatedAt,
		VerifiedDomains: it.VerifiedDomains, DefaultSender: it.defaultSender(),
		DefaultTracking: it.DefaultTracking, TrackingOffProvisioned: it.TrackingOffProvisioned,
		MonthlyAllowance: it.MonthlyAllowance, Brands: it.Brands, PostalAddress: it.PostalAddress,
		BulkApproved: it.BulkApproved,
	}
}

func (it WorkspaceItem) defaultSender() *identity.Sender {
	if it.DefaultSender == nil {
		return nil
	}
	s := it.DefaultSender.Sender()
	return &s
}

// CreateWorkspace stores a new workspace named name.
func (s *Workspaces) CreateWorkspace(ctx context.Context, name string) (workspace.Workspace, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return workspace.Workspace{}, err
	}
	it := WorkspaceItem{
		PK: dynamo.WorkspacePK(id.String()), SK: dynamo.KindWorkspace,
		GSI1PK: dynamo.WorkspacesListPK, GSI1SK: id.String(),
		ID: id.String(), Name: name, CreatedAt: s.Time().UTC(),
	}
	if err := s.PutItem(ctx, it, dynamo.ItemAbsent()); err != nil {
		return workspace.Workspace{}, fmt.Errorf("put workspace: %w", err)
	}
	return it.Workspace(), nil
}

// GetWorkspace reads one workspace.
func (s *Workspaces) GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error) {
	return dynamo.GetAs(ctx, s.Table, "workspace", dynamo.WorkspaceKey(id), WorkspaceItem.Workspace, workspace.ErrNotFound)
}

// ListWorkspaces returns every workspace, oldest first.
func (s *Workspaces) ListWorkspaces(ctx context.Context) ([]workspace.Workspace, error) {
	in, err := s.Partition(schema.GSI1, schema.AttrGSI1PK, dynamo.WorkspacesListPK)
	if err != nil {
		return nil, err
	}
	items, err := dynamo.QueryAll[WorkspaceItem](ctx, s.DB, in)
	if err != nil {
		return nil, fmt.Errorf("query workspaces: %w", err)
	}
	out := make([]workspace.Workspace, 0, len(items))
	for _, it := range items {
		out = append(out, it.Workspace())
	}
	return out, nil
}

// UpdateWorkspace applies the settings that are set in change.
func (s *Workspaces) UpdateWorkspace(ctx context.Context, id string, change workspace.Settings) (workspace.Workspace, error) {
	var update expression.UpdateBuilder
	set := func(name string, v any) { update = update.Set(expression.Name(name), expression.Value(v)) }
	if change.DefaultTracking != nil {
		set("default_tracking", *change.DefaultTracking)
	}
	if change.TrackingOffProvisioned != nil {
		set("tracking_off_provisioned", *change.TrackingOffProvisioned)
	}
	if change.MonthlyAllowance != nil {
		set("monthly_allowance", *change.MonthlyAllowance)
	}
	if change.Brands != nil {
		set("brands", *change.Brands)
	}
	if change.BulkApproved != nil {
		set("bulk_approved", *change.BulkApproved)
	}
	switch {
	case change.PostalAddress == nil:
	case *change.PostalAddress == "":
		update = update.Remove(expression.Name("postal_address"))
	default:
		set("postal_address", *change.PostalAddress)
	}
	return s.updateWorkspace(ctx, id, update)
}

// setVerifiedDomain adds or removes name in the workspace's verified domains.
func (s *Workspaces) setVerifiedDomain(ctx context.Context, id, name string, verified bool) error {
	set := &ddbtypes.AttributeValueMemberSS{Value: []string{name}}
	var update expression.UpdateBuilder
	if verified {
		update = update.Add(expression.Name("verified_domains"), expression.Value(set))
	} else {
		update = update.Delete(expression.Name("verified_domains"), expression.Value(set))
	}
	_, err := s.updateWorkspace(ctx, id, update)
	return err
}

func (s *Workspaces) updateWorkspace(ctx context.Context, id string, update expression.UpdateBuilder) (workspace.Workspace, error) {
	var it WorkspaceItem
	err := s.UpdateItem(ctx, dynamo.WorkspaceKey(id), update, dynamo.ItemExists(), &it)
	if dynamo.IsConditionFailed(err) {
		return workspace.Workspace{}, workspace.ErrNotFound
	}
	if err != nil {
		return workspace.Workspace{}, fmt.Errorf("update workspace: %w", err)
	}
	return it.Workspace(), nil
}
