package sendingdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/automationdb"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/suppression"
)

type UsageItem struct {
	Sent int `dynamodbav:"sent"`
}

type IdempotencyItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	RequestHash string    `dynamodbav:"request_hash"`
	StatusCode  int       `dynamodbav:"status_code"`
	Body        []byte    `dynamodbav:"body"`
	Pending     bool      `dynamodbav:"pending,omitempty"`
	CreatedAt   time.Time `dynamodbav:"created_at"`
	ExpiresAt   int64     `dynamodbav:"expires_at"`
}

func newIdempotencyItem(workspaceID string, rec sending.IdempotencyRecord) IdempotencyItem {
	return IdempotencyItem{
		PK: dynamo.IdempotencyPK(workspaceID, rec.Key), SK: rec.Key, RequestHash: rec.RequestHash,
		StatusCode: rec.StatusCode, Body: rec.Body, Pending: rec.Pending,
		CreatedAt: rec.CreatedAt, ExpiresAt: rec.ExpiresAt.Unix(),
	}
}

func (it IdempotencyItem) Record() *sending.IdempotencyRecord {
	return &sending.IdempotencyRecord{
		Key: it.SK, RequestHash: it.RequestHash, StatusCode: it.StatusCode, Body: it.Body,
		Pending: it.Pending, CreatedAt: it.CreatedAt, ExpiresAt: time.Unix(it.ExpiresAt, 0),
	}
}

// claimable is the condition of claiming an Idempotency-Key: no record, or
// one past its 24 hours (TTL deletes lazily).
func (s *Sends) claimable() expression.ConditionBuilder {
	return dynamo.ItemAbsent().Or(expression.Name(schema.AttrExpiresAt).LessThan(expression.Value(s.Time().Unix())))
}

// LoadContext reads everything a send decides on in one BatchGetItem: the
// workspace (with its verified domains and default sender), the requested
// sender, the recipient's suppression (its shard, and the partition
// before the shards unless q says it has none), the template, the month's
// usage (every shard, when asked) and the Idempotency-Key record; the
// parts q.Known holds are not read.
func (s *Sends) LoadContext(ctx context.Context, q sending.ContextQuery) (sending.Context, error) {
	ws, addr := q.WorkspaceID, suppression.Key(q.Recipient)
	var keys []map[string]ddbtypes.AttributeValue
	if !q.Known.Workspace {
		keys = append(keys, dynamo.WorkspaceKey(ws))
	}
	keys = append(keys, dynamo.SuppressionKeys(ws, addr, !q.NoOldSuppressions)...)
	if !q.Known.Template {
		keys = append(keys, dynamo.Key(dynamo.TemplatePK(ws), q.Fingerprint))
	}
	refSK := dynamo.ContentRefSK(q.Fingerprint, q.Day)
	if q.Day != "" && !q.Known.ContentRef {
		keys = append(keys, dynamo.Key(dynamo.TemplatePK(ws), refSK))
	}
	if q.ReadUsage {
		keys = append(keys, dynamo.UsageKeys(ws, q.Month)...)
	}
	if q.SenderID != "" && !q.Known.Sender {
		keys = append(keys, dynamo.Key(dynamo.SenderPK(ws), q.SenderID))
	}
	if q.IdempotencyKey != "" {
		keys = append(keys, dynamo.Key(dynamo.IdempotencyPK(ws, q.IdempotencyKey), q.IdempotencyKey))
	}
	items, err := s.BatchGet(ctx, keys)
	if err != nil {
		return sending.Context{}, err
	}
	var c sending.Context
	if q.Day != "" {
		c.ContentRef = email.ContentRef{Layout: q.Fingerprint, Day: q.Day}
	}
	var usage []map[string]ddbtypes.AttributeValue
	found := false
	for _, item := range items {
		pk := aws.ToString(dynamo.StringAttr(item, schema.AttrPK))
		var err error
		switch {
		case pk == dynamo.WorkspacePK(ws):
			var it workspacedb.WorkspaceItem
			err = attributevalue.UnmarshalMap(item, &it)
			c.Workspace, found = it.Workspace(), true
		case dynamo.IsSuppressionPK(ws, pk):
			c.Suppressed = true
		case pk == dynamo.TemplatePK(ws) && aws.ToString(dynamo.StringAttr(item, schema.AttrSK)) == refSK:
			c.ContentRef, err = emaildb.ContentRefOf(item, q.Fingerprint, q.Day)
		case pk == dynamo.TemplatePK(ws):
			var it templateItem
			err = attributevalue.UnmarshalMap(item, &it)
			c.Template = &sending.Template{Fingerprint: it.SK, State: sending.TemplateState(it.State), Reasons: it.Reasons}
		case dynamo.IsUsagePK(ws, pk):
			usage = append(usage, item)
		case pk == dynamo.SenderPK(ws):
			var it workspacedb.SenderItem
			err = attributevalue.UnmarshalMap(item, &it)
			sender := it.Sender()
			c.Sender = &sender
		case q.IdempotencyKey != "" && pk == dynamo.IdempotencyPK(ws, q.IdempotencyKey):
			var it IdempotencyItem
			err = attributevalue.UnmarshalMap(item, &it)
			if time.Unix(it.ExpiresAt, 0).After(s.Time()) { // TTL deletes lazily
				c.Idempotency = it.Record()
			}
		}
		if err != nil {
			return sending.Context{}, err
		}
	}
	if !found && !q.Known.Workspace {
		return sending.Context{}, sending.ErrWorkspaceNotFound
	}
	if c.MonthlySent, err = sumUsage(usage); err != nil {
		return sending.Context{}, err
	}
	c.UsageKnown = q.ReadUsage
	return c, nil
}

// takenBy returns the record that holds a key, with ErrIdempotencyTaken.
func takenBy(item map[string]ddbtypes.AttributeValue) (*sending.IdempotencyRecord, error) {
	var old IdempotencyItem
	if err := attributevalue.UnmarshalMap(item, &old); err != nil {
		return nil, err
	}
	return old.Record(), sending.ErrIdempotencyTaken
}

// CreateEmail stores a new email and its kept content in one round trip:
// a BatchWriteItem without a claim (the id is this request's own UUIDv7,
// so no condition is needed), else one transaction with the
// Idempotency-Key record, so of concurrent requests with one key exactly
// one records (and sends) an email. The content is stored against ref,
// the day's reference of its layout; the day's first send of a layout
// puts the reference at the same time (putContentRef).
func (s *Sends) CreateEmail(ctx context.Context, e email.Email, kept email.KeptContent, ref email.ContentRef, claim *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	emailPut, err := s.PutOf(emaildb.NewEmailItem(e), dynamo.NoCondition)
	if err != nil {
		return nil, err
	}
	contentPut, refPut, err := (&emaildb.Emails{Table: s.Table}).KeptContentPut(e.WorkspaceID, e.ID, kept, ref)
	if err != nil {
		return nil, err
	}
	defer s.putContentRef(ctx, refPut)()
	if claim == nil {
		err := s.BatchWrite(ctx, []ddbtypes.WriteRequest{
			{PutRequest: &ddbtypes.PutRequest{Item: emailPut.Item}}, {PutRequest: &ddbtypes.PutRequest{Item: contentPut.Item}},
		})
		if err != nil {
			return nil, fmt.Errorf("put email: %w", err)
		}
		return nil, nil
	}
	put, err := s.ClaimPut(e.WorkspaceID, *claim)
	if err != nil {
		return nil, err
	}
	return s.WriteClaimed(ctx, []ddbtypes.TransactWriteItem{{Put: put}, {Put: emailPut}, {Put: contentPut}}, true, "create email")
}

// putContentRef starts the conditional put of a day's reference (none
// when p is nil) beside the email's own write, and returns the wait for
// it. Its outcome changes nothing: the email's content was kept whole,
// and a put that lost to a concurrent first send, or failed, leaves the
// next send to read or write the reference.
func (s *Sends) putContentRef(ctx context.Context, p *ddbtypes.Put) (wait func()) {
	if p == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Put(context.WithoutCancel(ctx), p)
	}()
	return func() { <-done }
}

// ClaimPut is the conditional write of a claimed Idempotency-Key.
func (s *Sends) ClaimPut(workspaceID string, claim sending.IdempotencyRecord) (*ddbtypes.Put, error) {
	p, err := s.PutOf(newIdempotencyItem(workspaceID, claim), s.claimable())
	if err != nil {
		return nil, err
	}
	p.ReturnValuesOnConditionCheckFailure = ddbtypes.ReturnValuesOnConditionCheckFailureAllOld
	return p, nil
}

// WriteClaimed runs a transaction whose first item, when claimed, claims
// an Idempotency-Key: a key held by another request answers
// ErrIdempotencyTaken with its record, and a concurrent twin's conflicting
// transaction answers it as still in progress.
func (s *Sends) WriteClaimed(ctx context.Context, items []ddbtypes.TransactWriteItem, claimed bool, what string) (*sending.IdempotencyRecord, error) {
	_, err := s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tce *ddbtypes.TransactionCanceledException
	if claimed && errors.As(err, &tce) && len(tce.CancellationReasons) > 0 {
		switch aws.ToString(tce.CancellationReasons[0].Code) {
		case "ConditionalCheckFailed":
			return takenBy(tce.CancellationReasons[0].Item)
		case "TransactionConflict":
			claim := items[0].Put
			var it IdempotencyItem
			if err := attributevalue.UnmarshalMap(claim.Item, &it); err != nil {
				return nil, err
			}
			it.Pending, it.CreatedAt = true, s.Time().UTC()
			return it.Record(), sending.ErrIdempotencyTaken
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return nil, nil
}

// FinishIdempotency stores the final answer of a claimed key.
func (s *Sends) FinishIdempotency(ctx context.Context, workspaceID string, rec sending.IdempotencyRecord) error {
	update := expression.Set(expression.Name("status_code"), expression.Value(rec.StatusCode)).
		Set(expression.Name("body"), expression.Value(rec.Body)).
		Remove(expression.Name("pending"))
	if err := s.UpdateItem(ctx, dynamo.Key(dynamo.IdempotencyPK(workspaceID, rec.Key), rec.Key), update, dynamo.ItemExists(), nil); err != nil {
		return fmt.Errorf("finish idempotency key: %w", err)
	}
	return nil
}

// ReleaseIdempotency forgets a key whose request did not complete.
func (s *Sends) ReleaseIdempotency(ctx context.Context, workspaceID, k string) error {
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.Name, Key: dynamo.Key(dynamo.IdempotencyPK(workspaceID, k), k)})
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// FailEmail moves an email to failed with a reason.
func (s *Sends) FailEmail(ctx context.Context, workspaceID, id, reason string) error {
	update := expression.Set(expression.Name("status"), expression.Value(string(email.StatusFailed)))
	if reason != "" {
		update = update.Set(expression.Name("error"), expression.Value(reason))
	}
	if err := (&emaildb.Emails{Table: s.Table}).UpdateEmail(ctx, workspaceID, id, update, dynamo.ItemExists()); err != nil {
		return fmt.Errorf("fail email: %w", err)
	}
	return nil
}

// DeleteEmail removes an email that was never sent, and its kept content.
func (s *Sends) DeleteEmail(ctx context.Context, workspaceID, id string) error {
	err := s.BatchWrite(ctx, []ddbtypes.WriteRequest{
		{DeleteRequest: &ddbtypes.DeleteRequest{Key: dynamo.Key(dynamo.EmailPK(workspaceID, id), id)}},
		{DeleteRequest: &ddbtypes.DeleteRequest{Key: dynamo.Key(dynamo.EmailContentPK(workspaceID, id), emaildb.KeptContentSK)}},
	})
	if err != nil {
		return fmt.Errorf("delete email: %w", err)
	}
	return nil
}

// HoldEmail stores a held email, its content (gzip, in chunks) indexed by
// template, its kept content, and a new template as pending.
func (s *Sends) HoldEmail(ctx context.Context, h sending.HeldEmail, newTemplate bool, claim *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	ws := h.Email.WorkspaceID
	if newTemplate {
		err := s.PutItem(ctx, templateItem{PK: dynamo.TemplatePK(ws), SK: h.Fingerprint, State: string(sending.TemplatePending), CreatedAt: s.Time().UTC()}, dynamo.ItemAbsent())
		if err != nil && !dynamo.IsConditionFailed(err) { // a concurrent first email created it
			return nil, fmt.Errorf("put template: %w", err)
		}
	}
	held, err := emaildb.GzipJSON(h)
	if err != nil {
		return nil, err
	}
	emailPut, err := s.PutOf(emaildb.NewEmailItem(h.Email), dynamo.NoCondition)
	if err != nil {
		return nil, err
	}
	var items []ddbtypes.TransactWriteItem
	if claim != nil {
		put, err := s.ClaimPut(ws, *claim)
		if err != nil {
			return nil, err
		}
		items = append(items, ddbtypes.TransactWriteItem{Put: put})
	}
	contentPut, _, err := (&emaildb.Emails{Table: s.Table}).KeptContentPut(ws, h.Email.ID, h.Kept, h.KeptRef)
	if err != nil {
		return nil, err
	}
	items = append(items, ddbtypes.TransactWriteItem{Put: emailPut}, ddbtypes.TransactWriteItem{Put: contentPut})
	chunks, err := s.heldChunkPuts(h, held, true)
	if err != nil {
		return nil, err
	}
	return s.WriteClaimed(ctx, append(items, chunks...), claim != nil, "hold email")
}

// heldChunkPuts are the puts of a held email's gzip'd content, in chunks;
// the first is indexed by the email's template when byTemplate (a
// scheduled email is not, until it is due).
func (s *Sends) heldChunkPuts(h sending.HeldEmail, data []byte, byTemplate bool) ([]ddbtypes.TransactWriteItem, error) {
	ws := h.Email.WorkspaceID
	var items []ddbtypes.TransactWriteItem
	for i := 0; len(data) > 0 || i == 0; i++ {
		n := min(len(data), heldChunkBytes)
		chunk := heldChunk{PK: dynamo.HeldPK(ws, h.Email.ID), SK: heldChunkKey(i), Data: data[:n]}
		if i == 0 && byTemplate {
			chunk.GSI1PK, chunk.GSI1SK = dynamo.HeldByTemplatePK(ws, h.Fingerprint), h.Email.ID
		}
		data = data[n:]
		put, err := s.PutOf(chunk, dynamo.NoCondition)
		if err != nil {
			return nil, err
		}
		items = append(items, ddbtypes.TransactWriteItem{Put: put})
	}
	return items, nil
}

// ScheduleEmail stores a scheduled email, its kept content, its content
// as a held email's (not indexed by template) and its wake-up at wakeAt,
// the automation tick's durable timer, in one transaction with the claim.
func (s *Sends) ScheduleEmail(ctx context.Context, h sending.HeldEmail, wakeAt time.Time, claim *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	ws := h.Email.WorkspaceID
	var items []ddbtypes.TransactWriteItem
	if claim != nil {
		put, err := s.ClaimPut(ws, *claim)
		if err != nil {
			return nil, err
		}
		items = append(items, ddbtypes.TransactWriteItem{Put: put})
	}
	emailPut, err := s.PutOf(emaildb.NewEmailItem(h.Email), dynamo.NoCondition)
	if err != nil {
		return nil, err
	}
	contentPut, _, err := (&emaildb.Emails{Table: s.Table}).KeptContentPut(ws, h.Email.ID, h.Kept, h.KeptRef)
	if err != nil {
		return nil, err
	}
	wakePut, err := s.PutOf(automationdb.NewWakeItem(wakeAt, automation.WakeMessage{WorkspaceID: ws, EmailID: h.Email.ID}), dynamo.NoCondition)
	if err != nil {
		return nil, err
	}
	items = append(items, ddbtypes.TransactWriteItem{Put: emailPut}, ddbtypes.TransactWriteItem{Put: contentPut}, ddbtypes.TransactWriteItem{Put: wakePut})
	data, err := emaildb.GzipJSON(h)
	if err != nil {
		return nil, err
	}
	chunks, err := s.heldChunkPuts(h, data, false)
	if err != nil {
		return nil, err
	}
	return s.WriteClaimed(ctx, append(items, chunks...), claim != nil, "schedule email")
}

// GetEmail reads an email of the workspace.
func (s *Sends) GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error) {
	return (&emaildb.Emails{Table: s.Table}).GetEmail(ctx, workspaceID, id)
}

// CancelScheduled moves a scheduled email to cancelled and drops its
// content, in one transaction that fails with ErrNotScheduled unless it
// is still scheduled (a due email becomes held as it starts). Its
// wake-up stays: when swept it finds nothing to send.
func (s *Sends) CancelScheduled(ctx context.Context, workspaceID, emailID string, _ time.Time) error {
	chunks, err := (&Held{s.Table}).heldChunks(ctx, workspaceID, emailID)
	if err != nil {
		return err
	}
	u, err := (&emaildb.Emails{Table: s.Table}).EmailStatusUpdate(dynamo.Key(dynamo.EmailPK(workspaceID, emailID), emailID), email.StatusCancelled, "", isScheduled())
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{{Update: u}}
	for _, c := range chunks {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(c.PK, c.SK)}})
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if dynamo.IsTransactionConditionFailed(err) {
		return sending.ErrNotScheduled
	}
	if err != nil {
		return fmt.Errorf("cancel scheduled email: %w", err)
	}
	return nil
}

// isScheduled is the condition of an email still scheduled.
func isScheduled() expression.ConditionBuilder {
	return expression.Name("status").Equal(expression.Value(string(email.StatusScheduled)))
}

// DeleteHeld removes a held email and its contents, for a hold whose review
// could not be queued: the client is told nothing was accepted.
func (s *Sends) DeleteHeld(ctx context.Context, workspaceID, emailID string) error {
	chunks, err := (&Held{s.Table}).heldChunks(ctx, workspaceID, emailID)
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{
		{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(dynamo.EmailPK(workspaceID, emailID), emailID)}},
		{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(dynamo.EmailContentPK(workspaceID, emailID), emaildb.KeptContentSK)}},
	}
	for _, c := range chunks {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Name, Key: dynamo.Key(c.PK, c.SK)}})
	}
	if _, err := s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		return fmt.Errorf("delete held email: %w", err)
	}
	return nil
}
