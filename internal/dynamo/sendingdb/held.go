package sendingdb

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/sending"
)

type templateItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	State     string    `dynamodbav:"state"`
	Reasons   []string  `dynamodbav:"reasons,omitempty"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

// heldChunkBytes keeps each held-content item well under DynamoDB's 400 KB.
const heldChunkBytes = 300 << 10

func heldChunkKey(i int) string { return fmt.Sprintf("%04d", i) }

type heldChunk struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	GSI1PK string `dynamodbav:"gsi1pk,omitempty"`
	GSI1SK string `dynamodbav:"gsi1sk,omitempty"`
	Data   []byte `dynamodbav:"data"`
	// SentMessageID, on the first chunk, records that SES took the email,
	// so a release retried after that never sends it again.
	SentMessageID string `dynamodbav:"sent_message_id,omitempty"`
}

// GetTemplate reads a template's review state.
func (s *Held) GetTemplate(ctx context.Context, workspaceID, fingerprint string) (sending.Template, error) {
	var it templateItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.TemplatePK(workspaceID), fingerprint), &it)
	if err != nil {
		return sending.Template{}, fmt.Errorf("get template: %w", err)
	}
	if !found {
		return sending.Template{Fingerprint: fingerprint, State: sending.TemplatePending}, nil
	}
	return sending.Template{Fingerprint: it.SK, State: sending.TemplateState(it.State), Reasons: it.Reasons}, nil
}

// DecideTemplate records the review's decision on a template.
func (s *Held) DecideTemplate(ctx context.Context, workspaceID, fingerprint string, state sending.TemplateState, reasons []string, onlyIfPending bool) (bool, error) {
	update := expression.Set(expression.Name("state"), expression.Value(string(state))).
		Set(expression.Name("decided_at"), expression.Value(s.Time().UTC())).
		Set(expression.Name("created_at"), expression.IfNotExists(expression.Name("created_at"), expression.Value(s.Time().UTC())))
	if len(reasons) > 0 {
		update = update.Set(expression.Name("reasons"), expression.Value(reasons))
	} else {
		update = update.Remove(expression.Name("reasons"))
	}
	cond := dynamo.NoCondition
	if onlyIfPending {
		cond = dynamo.ItemAbsent().Or(expression.Name("state").Equal(expression.Value(string(sending.TemplatePending))))
	}
	err := s.UpdateItem(ctx, dynamo.Key(dynamo.TemplatePK(workspaceID), fingerprint), update, cond, nil)
	if dynamo.IsConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("decide template: %w", err)
	}
	return true, nil
}

// LeaseHeld reserves a held email for one reviewer until until: the lease
// lives on its first content chunk, which exists exactly while it is held.
func (s *Held) LeaseHeld(ctx context.Context, workspaceID, emailID string, now, until time.Time) error {
	cond := dynamo.ItemExists().And(expression.Or(
		expression.AttributeNotExists(expression.Name("lease_until")),
		expression.Name("lease_until").LessThan(expression.Value(now.Unix())),
	))
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("lease_until"), expression.Value(until.Unix()))).
		WithCondition(cond).Build()
	if err != nil {
		return err
	}
	_, err = s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.Name, Key: dynamo.Key(dynamo.HeldPK(workspaceID, emailID), heldChunkKey(0)),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: ddbtypes.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *ddbtypes.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf) && len(ccf.Item) == 0:
		return sending.ErrNotHeld
	case errors.As(err, &ccf):
		return sending.ErrLeased
	case err != nil:
		return fmt.Errorf("lease held email: %w", err)
	}
	return nil
}

// ListHeld returns the ids of the emails held with a template, oldest first.
func (s *Held) ListHeld(ctx context.Context, workspaceID, fingerprint string) ([]string, error) {
	in, err := s.Partition(schema.GSI1, schema.AttrGSI1PK, dynamo.HeldByTemplatePK(workspaceID, fingerprint))
	if err != nil {
		return nil, err
	}
	items, err := dynamo.QueryAll[heldChunk](ctx, s.DB, in)
	if err != nil {
		return nil, fmt.Errorf("list held: %w", err)
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.GSI1SK)
	}
	return ids, nil
}

func (s *Held) heldChunks(ctx context.Context, workspaceID, emailID string) ([]heldChunk, error) {
	in, err := s.Partition("", schema.AttrPK, dynamo.HeldPK(workspaceID, emailID))
	if err != nil {
		return nil, err
	}
	in.ConsistentRead = aws.Bool(true)
	chunks, err := dynamo.QueryAll[heldChunk](ctx, s.DB, in)
	if err != nil {
		return nil, fmt.Errorf("read held content: %w", err)
	}
	return chunks, nil
}

// GetHeld reads a held email and its content.
func (s *Held) GetHeld(ctx context.Context, workspaceID, emailID string) (sending.HeldEmail, error) {
	chunks, err := s.heldChunks(ctx, workspaceID, emailID)
	if err != nil {
		return sending.HeldEmail{}, err
	}
	if len(chunks) == 0 {
		return sending.HeldEmail{}, sending.ErrNotHeld
	}
	var data []byte
	for _, c := range chunks { // sort keys keep them in order
		data = append(data, c.Data...)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return sending.HeldEmail{}, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return sending.HeldEmail{}, err
	}
	var h sending.HeldEmail
	if err := json.Unmarshal(raw, &h); err != nil {
		return sending.HeldEmail{}, err
	}
	h.SentMessageID = chunks[0].SentMessageID
	return h, nil
}

// MarkHeldSent records on a held email that SES took it.
func (s *Held) MarkHeldSent(ctx context.Context, workspaceID, emailID, messageID string) error {
	update := expression.Set(expression.Name("sent_message_id"), expression.Value(messageID))
	err := s.UpdateItem(ctx, dynamo.Key(dynamo.HeldPK(workspaceID, emailID), heldChunkKey(0)), update, dynamo.ItemExists(), nil)
	if dynamo.IsConditionFailed(err) {
		return sending.ErrNotHeld
	}
	if err != nil {
		return fmt.Errorf("mark held email sent: %w", err)
	}
	return nil
}

// StartScheduled moves a due scheduled email to held, its first content
// chunk indexed by its template (recorded pending when new; none for a
// test key's email, fingerprint ""), in one transaction that leaves an
// email already held as it is and fails with ErrNotScheduled for any
// other status.
func (s *Held) StartScheduled(ctx context.Context, workspaceID, emailID, fingerprint string) error {
	if fingerprint != "" {
		err := s.PutItem(ctx, templateItem{PK: dynamo.TemplatePK(workspaceID), SK: fingerprint, State: string(sending.TemplatePending), CreatedAt: s.Time().UTC()}, dynamo.ItemAbsent())
		if err != nil && !dynamo.IsConditionFailed(err) {
			return fmt.Errorf("put template: %w", err)
		}
	}
	cond := expression.Name("status").In(expression.Value(string(email.StatusScheduled)), expression.Value(string(email.StatusHeld)))
	u, err := (&emaildb.Emails{Table: s.Table}).EmailStatusUpdate(dynamo.Key(dynamo.EmailPK(workspaceID, emailID), emailID), email.StatusHeld, "", cond)
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{{Update: u}}
	if fingerprint != "" {
		index := expression.Set(expression.Name(schema.AttrGSI1PK), expression.Value(dynamo.HeldByTemplatePK(workspaceID, fingerprint))).
			Set(expression.Name(schema.AttrGSI1SK), expression.Value(emailID))
		c, err := s.UpdateOf(dynamo.Key(dynamo.HeldPK(workspaceID, emailID), heldChunkKey(0)), index, dynamo.ItemExists())
		if err != nil {
			return err
		}
		items = append(items, ddbtypes.TransactWriteItem{Update: c})
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if dynamo.IsTransactionConditionFailed(err) {
		return sending.ErrNotScheduled
	}
	if err != nil {
		return fmt.Errorf("start scheduled email: %w", err)
	}
	return nil
}

// ReleaseHeld moves a held email to status and drops its stored content,
// in one transaction that fails with ErrNotHeld unless it is still held.
func (s *Held) ReleaseHeld(ctx context.Context, workspaceID, emailID string, status email.Status, reason string) error {
	chunks, err := s.heldChunks(ctx, workspaceID, emailID)
	if err != nil {
		return err
	}
	if len(chunks) == 0 {
		return sending.ErrNotHeld
	}
	var items []ddbtypes.TransactWriteItem
	for _, c := range chunks {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(c.PK, c.SK)}})
	}
	// An email held before the shards is where that layout kept it.
	held, _, err := (&emaildb.Emails{Table: s.Table}).EmailItem(ctx, workspaceID, emailID)
	if err != nil {
		return fmt.Errorf("read held email: %w", err)
	}
	at := dynamo.Key(dynamo.EmailPK(workspaceID, emailID), emailID)
	if held.PK != "" {
		at = dynamo.Key(held.PK, emailID)
	}
	u, err := (&emaildb.Emails{Table: s.Table}).EmailStatusUpdate(at, status, reason, expression.Name("status").Equal(expression.Value(string(email.StatusHeld))))
	if err != nil {
		return err
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append(items, ddbtypes.TransactWriteItem{Update: u})})
	if dynamo.IsTransactionConditionFailed(err) && status == email.StatusSent {
		// SES's first events moved the email on already: only the content
		// is left to drop.
		_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	} else if dynamo.IsTransactionConditionFailed(err) {
		return sending.ErrNotHeld
	}
	if err != nil {
		return fmt.Errorf("release held email: %w", err)
	}
	return nil
}
