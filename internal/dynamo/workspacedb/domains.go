package workspacedb

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

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

type domainItem struct {
	PK          string               `dynamodbav:"pk"`
	SK          string               `dynamodbav:"sk"`
	GSI1PK      string               `dynamodbav:"gsi1pk"`
	GSI1SK      string               `dynamodbav:"gsi1sk"`
	ID          string               `dynamodbav:"id"`
	WorkspaceID string               `dynamodbav:"workspace_id"`
	Name        string               `dynamodbav:"name"`
	Status      string               `dynamodbav:"status"`
	Records     []identity.DNSRecord `dynamodbav:"records"`
	CreatedAt   time.Time            `dynamodbav:"created_at"`
	VerifiedAt  *time.Time           `dynamodbav:"verified_at,omitempty"`
}

// domainClaimItem says which workspace a domain belongs to.
type domainClaimItem struct {
	PK          string `dynamodbav:"pk"`
	SK          string `dynamodbav:"sk"`
	WorkspaceID string `dynamodbav:"workspace_id"`
}

func (it domainItem) domain() identity.Domain {
	return identity.Domain{
		ID: it.ID, WorkspaceID: it.WorkspaceID, Name: it.Name,
		Status: identity.DomainStatus(it.Status), Records: it.Records,
		CreatedAt: it.CreatedAt, VerifiedAt: it.VerifiedAt,
	}
}

// AddDomain records a sending domain of the workspace as pending.
func (s *Domains) AddDomain(ctx context.Context, workspaceID, name string, records []identity.DNSRecord) (identity.Domain, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return identity.Domain{}, err
	}
	name, err = identity.NormalizeDomain(name)
	if err != nil {
		return identity.Domain{}, err
	}
	it := domainItem{
		PK: dynamo.DomainPK(workspaceID), SK: name, GSI1PK: dynamo.DomainListPK(workspaceID), GSI1SK: id.String(),
		ID: id.String(), WorkspaceID: workspaceID, Name: name, Status: string(identity.DomainPending),
		Records: records, CreatedAt: s.Time().UTC(),
	}
	wsCheck, err := s.WorkspaceCheck(workspaceID)
	if err != nil {
		return identity.Domain{}, err
	}
	put, err := s.PutOf(it, dynamo.ItemAbsent())
	if err != nil {
		return identity.Domain{}, err
	}
	// An SES identity belongs to the whole AWS account, so a domain is
	// claimed by one workspace: a claim item outside every workspace, the
	// one key of this kind besides API keys, keyed by the domain.
	claim, err := s.PutOf(domainClaimItem{
		PK: dynamo.DomainClaimPK(name), SK: dynamo.DomainClaimSK, WorkspaceID: workspaceID,
	}, dynamo.ItemAbsent().Or(expression.Name("workspace_id").Equal(expression.Value(workspaceID))))
	if err != nil {
		return identity.Domain{}, err
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
		wsCheck, {Put: put}, {Put: claim},
	}})
	var tce *ddbtypes.TransactionCanceledException
	if errors.As(err, &tce) && len(tce.CancellationReasons) == 3 {
		switch {
		case aws.ToString(tce.CancellationReasons[0].Code) == "ConditionalCheckFailed":
			return identity.Domain{}, workspace.ErrNotFound
		case aws.ToString(tce.CancellationReasons[1].Code) == "ConditionalCheckFailed":
			return identity.Domain{}, identity.ErrDomainExists
		case aws.ToString(tce.CancellationReasons[2].Code) == "ConditionalCheckFailed":
			return identity.Domain{}, identity.ErrDomainTaken
		}
	}
	if err != nil {
		return identity.Domain{}, fmt.Errorf("add domain: %w", err)
	}
	return it.domain(), nil
}

// CanAddDomain reports, before anything is created, why the workspace
// cannot add the domain: it does not exist, has the domain already, or
// another workspace claimed it. AddDomain checks the same atomically.
func (s *Domains) CanAddDomain(ctx context.Context, workspaceID, name string) error {
	if _, err := (&Workspaces{s.Table}).GetWorkspace(ctx, workspaceID); err != nil {
		return err
	}
	name, err := identity.NormalizeDomain(name)
	if err != nil {
		return err
	}
	var claim domainClaimItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.DomainClaimPK(name), dynamo.DomainClaimSK), &claim)
	switch {
	case err != nil:
		return fmt.Errorf("read domain claim: %w", err)
	case found && claim.WorkspaceID != workspaceID:
		return identity.ErrDomainTaken
	}
	if _, err := s.GetDomain(ctx, workspaceID, name); err == nil {
		return identity.ErrDomainExists
	} else if !errors.Is(err, identity.ErrDomainNotFound) {
		return err
	}
	return nil
}

// GetDomain reads a domain of the workspace by name.
func (s *Domains) GetDomain(ctx context.Context, workspaceID, name string) (identity.Domain, error) {
	name, err := identity.NormalizeDomain(name)
	if err != nil {
		return identity.Domain{}, identity.ErrDomainNotFound
	}
	return dynamo.GetAs(ctx, s.Table, "domain", dynamo.Key(dynamo.DomainPK(workspaceID), name), domainItem.domain, identity.ErrDomainNotFound)
}

// SetDomainStatus records a domain's verification state, and keeps the
// Workspace's list of verified domains (read by every send) in step.
func (s *Domains) SetDomainStatus(ctx context.Context, workspaceID, name string, status identity.DomainStatus, records []identity.DNSRecord) (identity.Domain, error) {
	name, err := identity.NormalizeDomain(name)
	if err != nil {
		return identity.Domain{}, identity.ErrDomainNotFound
	}
	update := expression.Set(expression.Name("status"), expression.Value(string(status)))
	if records != nil {
		update = update.Set(expression.Name("records"), expression.Value(records))
	}
	if status == identity.DomainVerified {
		update = update.Set(expression.Name("verified_at"), expression.IfNotExists(expression.Name("verified_at"), expression.Value(s.Time().UTC())))
	}
	var it domainItem
	err = s.UpdateItem(ctx, dynamo.Key(dynamo.DomainPK(workspaceID), name), update, dynamo.ItemExists(), &it)
	if dynamo.IsConditionFailed(err) {
		return identity.Domain{}, identity.ErrDomainNotFound
	}
	if err != nil {
		return identity.Domain{}, fmt.Errorf("set domain status: %w", err)
	}
	if err := (&Workspaces{s.Table}).setVerifiedDomain(ctx, workspaceID, name, status == identity.DomainVerified); err != nil {
		return identity.Domain{}, err
	}
	return it.domain(), nil
}

// ListDomains returns the workspace's domains newest first after position
// after ("" for the first page).
func (s *Domains) ListDomains(ctx context.Context, workspaceID, after string, limit int) ([]identity.Domain, string, bool, error) {
	keyCond := expression.Key(schema.AttrGSI1PK).Equal(expression.Value(dynamo.DomainListPK(workspaceID)))
	expr, err := expression.NewBuilder().WithKeyCondition(keyCond).Build()
	if err != nil {
		return nil, "", false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, IndexName: aws.String(schema.GSI1), ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), Limit: aws.Int32(int32(limit + 1)),
	}
	if after != "" {
		// The position is "<id> <name>": the index key and the table key.
		id, name, ok := strings.Cut(after, " ")
		if !ok {
			return nil, "", false, fmt.Errorf("bad domain position")
		}
		in.ExclusiveStartKey = dynamo.Key(dynamo.DomainPK(workspaceID), name)
		in.ExclusiveStartKey[schema.AttrGSI1PK] = &ddbtypes.AttributeValueMemberS{Value: dynamo.DomainListPK(workspaceID)}
		in.ExclusiveStartKey[schema.AttrGSI1SK] = &ddbtypes.AttributeValueMemberS{Value: id}
	}
	out, err := s.DB.Query(ctx, in)
	if err != nil {
		return nil, "", false, fmt.Errorf("list domains: %w", err)
	}
	var items []domainItem
	if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
		return nil, "", false, err
	}
	var domains []identity.Domain
	for _, it := range items {
		domains = append(domains, it.domain())
	}
	if len(domains) > limit {
		last := domains[limit-1]
		return domains[:limit], last.ID + " " + last.Name, true, nil
	}
	return domains, "", false, nil
}
