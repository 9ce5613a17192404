package emailtemplatedb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/fail"
)

// storedTemplateItem is a template's latest version (the head, sk = id)
// or one of its versions kept unchanged (sk = zero-padded version).
type storedTemplateItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	ID          string    `dynamodbav:"id"`
	Name        string    `dynamodbav:"name"`
	Subject     string    `dynamodbav:"subject"`
	HTML        string    `dynamodbav:"html"`
	Version     int       `dynamodbav:"version"`
	Fingerprint string    `dynamodbav:"fingerprint"`
	CreatedAt   time.Time `dynamodbav:"created_at"`
	UpdatedAt   time.Time `dynamodbav:"updated_at"`
}

func storedTemplateOf(t emailtemplate.Template) storedTemplateItem {
	return storedTemplateItem{
		PK: dynamo.StoredTemplatePK(t.WorkspaceID), SK: t.ID, ID: t.ID, Name: t.Name, Subject: t.Subject, HTML: t.HTML,
		Version: t.Version, Fingerprint: t.Fingerprint, CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC(),
	}
}

// version is the item keeping it as version it.Version.
func (it storedTemplateItem) version(workspaceID string) storedTemplateItem {
	it.PK, it.SK = dynamo.StoredTemplateVersionPK(workspaceID, it.ID), templateVersionSK(it.Version)
	return it
}

func (it storedTemplateItem) template(workspaceID string) emailtemplate.Template {
	return emailtemplate.Template{
		ID: it.ID, WorkspaceID: workspaceID, Name: it.Name, Subject: it.Subject, HTML: it.HTML,
		Version: it.Version, Fingerprint: it.Fingerprint, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

func templateVersionSK(v int) string { return fmt.Sprintf("%06d", v) }

var errTemplateNotFound = fail.NotFound("template")

// CreateTemplate stores a template's head and its version 1 at once.
func (s *Templates) CreateTemplate(ctx context.Context, t emailtemplate.Template) error {
	it := storedTemplateOf(t)
	head, err := s.PutOf(it, dynamo.ItemAbsent())
	if err != nil {
		return err
	}
	v, err := s.PutOf(it.version(t.WorkspaceID), dynamo.ItemAbsent())
	if err != nil {
		return err
	}
	if _, err := s.Transact(ctx, []ddbtypes.TransactWriteItem{{Put: head}, {Put: v}}); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	return nil
}

// GetTemplate reads a template's latest version (version 0) or a kept
// one: one GetItem.
func (s *Templates) GetTemplate(ctx context.Context, workspaceID, id string, version int) (emailtemplate.Template, error) {
	k := dynamo.Key(dynamo.StoredTemplatePK(workspaceID), id)
	if version > 0 {
		k = dynamo.Key(dynamo.StoredTemplateVersionPK(workspaceID, id), templateVersionSK(version))
	}
	return dynamo.GetAs(ctx, s.Table, "template", k, func(it storedTemplateItem) emailtemplate.Template { return it.template(workspaceID) }, errTemplateNotFound)
}

// ListTemplates reads a page of the workspace's templates, newest first.
func (s *Templates) ListTemplates(ctx context.Context, workspaceID, after string, limit int) ([]emailtemplate.Template, string, bool, error) {
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(schema.AttrPK).Equal(expression.Value(dynamo.StoredTemplatePK(workspaceID)))).Build()
	if err != nil {
		return nil, "", false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, ScanIndexForward: aws.Bool(false), KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	if after != "" {
		in.ExclusiveStartKey = dynamo.Key(dynamo.StoredTemplatePK(workspaceID), after)
	}
	return dynamo.FilteredPage(ctx, s.Table, "templates", in, limit, schema.AttrSK,
		func(it storedTemplateItem) emailtemplate.Template { return it.template(workspaceID) })
}

// UpdateTemplate writes t over the head read at the version before it (or
// at its own, for a rename), with the new version kept beside it, in one
// transaction: emailtemplate.ErrMoved when the head moved meanwhile.
func (s *Templates) UpdateTemplate(ctx context.Context, t emailtemplate.Template, newVersion bool) error {
	read := t.Version
	if newVersion {
		read--
	}
	it := storedTemplateOf(t)
	head, err := s.PutOf(it, dynamo.ItemExists().And(expression.Name("version").Equal(expression.Value(read))))
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{{Put: head}}
	if newVersion {
		v, err := s.PutOf(it.version(t.WorkspaceID), dynamo.ItemAbsent())
		if err != nil {
			return err
		}
		items = append(items, ddbtypes.TransactWriteItem{Put: v})
	}
	failed, err := s.Transact(ctx, items)
	switch {
	case err != nil:
		return fmt.Errorf("update template: %w", err)
	case len(failed) > 0:
		return emailtemplate.ErrMoved
	}
	return nil
}

// DeleteTemplate removes the head (a not-found error when absent), then
// the kept versions; a version left by a failure is unreachable.
func (s *Templates) DeleteTemplate(ctx context.Context, workspaceID, id string) error {
	found, err := s.DeleteExisting(ctx, dynamo.Key(dynamo.StoredTemplatePK(workspaceID), id))
	if err != nil {
		return fmt.Errorf("delete template: %w", err)
	}
	if !found {
		return errTemplateNotFound
	}
	versions, err := dynamo.ListPartition[storedTemplateItem](ctx, s.Table, dynamo.StoredTemplateVersionPK(workspaceID, id))
	if err != nil {
		return fmt.Errorf("delete template versions: %w", err)
	}
	deletes := make([]ddbtypes.WriteRequest, 0, len(versions))
	for _, v := range versions {
		deletes = append(deletes, ddbtypes.WriteRequest{DeleteRequest: &ddbtypes.DeleteRequest{Key: dynamo.Key(v.PK, v.SK)}})
	}
	if err := s.BatchWrite(ctx, deletes); err != nil {
		return fmt.Errorf("delete template versions: %w", err)
	}
	return nil
}
