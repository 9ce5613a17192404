package dynamo

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/sending"
)

func suppressionPK(ws string) string { return wsPK(ws, "SUPPRESSION") }
func templatePK(ws string) string    { return wsPK(ws, "TEMPLATE") }
func usagePK(ws string) string       { return wsPK(ws, "USAGE") }
func idempotencyPK(ws string) string { return wsPK(ws, "IDEM") }
func heldPK(ws, emailID string) string {
	return wsPK(ws, "HELD#"+emailID)
}
func heldByTemplatePK(ws, fingerprint string) string { return wsPK(ws, "HELDTPL#"+fingerprint) }

type templateItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	State     string    `dynamodbav:"state"`
	Reasons   []string  `dynamodbav:"reasons,omitempty"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

type usageItem struct {
	Sent int `dynamodbav:"sent"`
}

type idempotencyItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	RequestHash string    `dynamodbav:"request_hash"`
	StatusCode  int       `dynamodbav:"status_code"`
	Body        []byte    `dynamodbav:"body"`
	Pending     bool      `dynamodbav:"pending,omitempty"`
	CreatedAt   time.Time `dynamodbav:"created_at"`
	ExpiresAt   int64     `dynamodbav:"expires_at"`
}

func newIdempotencyItem(workspaceID string, rec sending.IdempotencyRecord) idempotencyItem {
	return idempotencyItem{
		PK: idempotencyPK(workspaceID), SK: rec.Key, RequestHash: rec.RequestHash,
		StatusCode: rec.StatusCode, Body: rec.Body, Pending: rec.Pending,
		CreatedAt: rec.CreatedAt, ExpiresAt: rec.ExpiresAt.Unix(),
	}
}

func (it idempotencyItem) record() *sending.IdempotencyRecord {
	return &sending.IdempotencyRecord{
		Key: it.SK, RequestHash: it.RequestHash, StatusCode: it.StatusCode, Body: it.Body,
		Pending: it.Pending, CreatedAt: it.CreatedAt, ExpiresAt: time.Unix(it.ExpiresAt, 0),
	}
}

// claimable is the condition of claiming an Idempotency-Key: no record, or
// one past its 24 hours (TTL deletes lazily).
func (s *Store) claimable() expression.ConditionBuilder {
	return itemAbsent().Or(expression.Name(schema.AttrExpiresAt).LessThan(expression.Value(s.now().Unix())))
}

// LoadContext reads everything a send decides on in one BatchGetItem: the
// workspace (with its verified domains and default sender), the requested
// sender, the recipient's suppression, the template, the month's usage and
// the Idempotency-Key record.
func (s *Store) LoadContext(ctx context.Context, q sending.ContextQuery) (sending.Context, error) {
	keys := []map[string]ddbtypes.AttributeValue{
		workspaceKey(q.WorkspaceID),
		key(suppressionPK(q.WorkspaceID), strings.ToLower(q.Recipient)),
		key(templatePK(q.WorkspaceID), q.Fingerprint),
		key(usagePK(q.WorkspaceID), q.Month),
	}
	if q.SenderID != "" {
		keys = append(keys, key(senderPK(q.WorkspaceID), q.SenderID))
	}
	if q.IdempotencyKey != "" {
		keys = append(keys, key(idempotencyPK(q.WorkspaceID), q.IdempotencyKey))
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return sending.Context{}, err
	}
	var c sending.Context
	found := false
	for _, item := range items {
		pk := aws.ToString(stringAttr(item, schema.AttrPK))
		var err error
		switch pk {
		case wsPK(q.WorkspaceID, "WORKSPACE"):
			var it workspaceItem
			err = attributevalue.UnmarshalMap(item, &it)
			c.Workspace, found = it.workspace(), true
		case suppressionPK(q.WorkspaceID):
			c.Suppressed = true
		case templatePK(q.WorkspaceID):
			var it templateItem
			err = attributevalue.UnmarshalMap(item, &it)
			c.Template = &sending.Template{Fingerprint: it.SK, State: sending.TemplateState(it.State), Reasons: it.Reasons}
		case usagePK(q.WorkspaceID):
			var it usageItem
			err = attributevalue.UnmarshalMap(item, &it)
			c.MonthlySent = it.Sent
		case senderPK(q.WorkspaceID):
			var it senderItem
			err = attributevalue.UnmarshalMap(item, &it)
			sender := it.sender()
			c.Sender = &sender
		case idempotencyPK(q.WorkspaceID):
			var it idempotencyItem
			err = attributevalue.UnmarshalMap(item, &it)
			if time.Unix(it.ExpiresAt, 0).After(s.now()) { // TTL deletes lazily
				c.Idempotency = it.record()
			}
		}
		if err != nil {
			return sending.Context{}, err
		}
	}
	if !found {
		return sending.Context{}, sending.ErrWorkspaceNotFound
	}
	return c, nil
}

// batchGet reads keys with strong consistency, retrying unprocessed keys.
func (s *Store) batchGet(ctx context.Context, keys []map[string]ddbtypes.AttributeValue) ([]map[string]ddbtypes.AttributeValue, error) {
	req := map[string]ddbtypes.KeysAndAttributes{s.Table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
	var out []map[string]ddbtypes.AttributeValue
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 20 * time.Millisecond):
			}
		}
		if attempt == 5 {
			return nil, errors.New("batch get: keys left unprocessed")
		}
		res, err := s.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, fmt.Errorf("batch get: %w", err)
		}
		out = append(out, res.Responses[s.Table]...)
		req = res.UnprocessedKeys
	}
	return out, nil
}

// takenBy returns the record that holds a key, with ErrIdempotencyTaken.
func takenBy(item map[string]ddbtypes.AttributeValue) (*sending.IdempotencyRecord, error) {
	var old idempotencyItem
	if err := attributevalue.UnmarshalMap(item, &old); err != nil {
		return nil, err
	}
	return old.record(), sending.ErrIdempotencyTaken
}

// CreateEmail stores a new email; with a claim, the Idempotency-Key record
// and the email are written in one transaction, so of concurrent requests
// with one key exactly one records (and sends) an email.
func (s *Store) CreateEmail(ctx context.Context, e email.Email, claim *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	if claim == nil {
		return nil, s.PutEmail(ctx, e)
	}
	put, err := s.claimPut(e.WorkspaceID, *claim)
	if err != nil {
		return nil, err
	}
	emailPut, err := s.putOf(newEmailItem(e), noCondition)
	if err != nil {
		return nil, err
	}
	return s.writeClaimed(ctx, []ddbtypes.TransactWriteItem{{Put: put}, {Put: emailPut}}, true, "create email")
}

// claimPut is the conditional write of a claimed Idempotency-Key.
func (s *Store) claimPut(workspaceID string, claim sending.IdempotencyRecord) (*ddbtypes.Put, error) {
	p, err := s.putOf(newIdempotencyItem(workspaceID, claim), s.claimable())
	if err != nil {
		return nil, err
	}
	p.ReturnValuesOnConditionCheckFailure = ddbtypes.ReturnValuesOnConditionCheckFailureAllOld
	return p, nil
}

// writeClaimed runs a transaction whose first item, when claimed, claims
// an Idempotency-Key: a key held by another request answers
// ErrIdempotencyTaken with its record, and a concurrent twin's conflicting
// transaction answers it as still in progress.
func (s *Store) writeClaimed(ctx context.Context, items []ddbtypes.TransactWriteItem, claimed bool, what string) (*sending.IdempotencyRecord, error) {
	_, err := s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tce *ddbtypes.TransactionCanceledException
	if claimed && errors.As(err, &tce) && len(tce.CancellationReasons) > 0 {
		switch aws.ToString(tce.CancellationReasons[0].Code) {
		case "ConditionalCheckFailed":
			return takenBy(tce.CancellationReasons[0].Item)
		case "TransactionConflict":
			claim := items[0].Put
			var it idempotencyItem
			if err := attributevalue.UnmarshalMap(claim.Item, &it); err != nil {
				return nil, err
			}
			it.Pending, it.CreatedAt = true, s.now().UTC()
			return it.record(), sending.ErrIdempotencyTaken
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return nil, nil
}

// FinishIdempotency stores the final answer of a claimed key.
func (s *Store) FinishIdempotency(ctx context.Context, workspaceID string, rec sending.IdempotencyRecord) error {
	update := expression.Set(expression.Name("status_code"), expression.Value(rec.StatusCode)).
		Set(expression.Name("body"), expression.Value(rec.Body)).
		Remove(expression.Name("pending"))
	if err := s.updateItem(ctx, key(idempotencyPK(workspaceID), rec.Key), update, itemExists(), nil); err != nil {
		return fmt.Errorf("finish idempotency key: %w", err)
	}
	return nil
}

// ReleaseIdempotency forgets a key whose request did not complete.
func (s *Store) ReleaseIdempotency(ctx context.Context, workspaceID, k string) error {
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.Table, Key: key(idempotencyPK(workspaceID), k)})
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// emailStatusUpdate moves an email to status; cond guards the move.
func (s *Store) emailStatusUpdate(workspaceID, id string, status email.Status, reason string, cond expression.ConditionBuilder) (*ddbtypes.Update, error) {
	update := expression.Set(expression.Name("status"), expression.Value(string(status)))
	if reason != "" {
		update = update.Set(expression.Name("error"), expression.Value(reason))
	}
	return s.updateOf(key(emailPK(workspaceID), id), update, cond)
}

// FailEmail moves an email to failed with a reason.
func (s *Store) FailEmail(ctx context.Context, workspaceID, id, reason string) error {
	u, err := s.emailStatusUpdate(workspaceID, id, email.StatusFailed, reason, itemExists())
	if err != nil {
		return err
	}
	if err := s.update(ctx, u, nil); err != nil {
		return fmt.Errorf("fail email: %w", err)
	}
	return nil
}

// DeleteEmail removes an email that was never sent.
func (s *Store) DeleteEmail(ctx context.Context, workspaceID, id string) error {
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.Table, Key: key(emailPK(workspaceID), id)})
	if err != nil {
		return fmt.Errorf("delete email: %w", err)
	}
	return nil
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

// HoldEmail stores a held email, its content (gzip, in chunks) indexed by
// template, and a new template as pending.
func (s *Store) HoldEmail(ctx context.Context, h sending.HeldEmail, newTemplate bool, claim *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	ws := h.Email.WorkspaceID
	if newTemplate {
		err := s.putItem(ctx, templateItem{PK: templatePK(ws), SK: h.Fingerprint, State: string(sending.TemplatePending), CreatedAt: s.now().UTC()}, itemAbsent())
		if err != nil && !isConditionFailed(err) { // a concurrent first email created it
			return nil, fmt.Errorf("put template: %w", err)
		}
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(h); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	emailPut, err := s.putOf(newEmailItem(h.Email), noCondition)
	if err != nil {
		return nil, err
	}
	var items []ddbtypes.TransactWriteItem
	if claim != nil {
		put, err := s.claimPut(ws, *claim)
		if err != nil {
			return nil, err
		}
		items = append(items, ddbtypes.TransactWriteItem{Put: put})
	}
	items = append(items, ddbtypes.TransactWriteItem{Put: emailPut})
	data := buf.Bytes()
	for i := 0; len(data) > 0 || i == 0; i++ {
		n := min(len(data), heldChunkBytes)
		chunk := heldChunk{PK: heldPK(ws, h.Email.ID), SK: heldChunkKey(i), Data: data[:n]}
		if i == 0 {
			chunk.GSI1PK, chunk.GSI1SK = heldByTemplatePK(ws, h.Fingerprint), h.Email.ID
		}
		data = data[n:]
		put, err := s.putOf(chunk, noCondition)
		if err != nil {
			return nil, err
		}
		items = append(items, ddbtypes.TransactWriteItem{Put: put})
	}
	return s.writeClaimed(ctx, items, claim != nil, "hold email")
}

// GetTemplate reads a template's review state.
func (s *Store) GetTemplate(ctx context.Context, workspaceID, fingerprint string) (sending.Template, error) {
	var it templateItem
	found, err := s.getItem(ctx, key(templatePK(workspaceID), fingerprint), &it)
	if err != nil {
		return sending.Template{}, fmt.Errorf("get template: %w", err)
	}
	if !found {
		return sending.Template{Fingerprint: fingerprint, State: sending.TemplatePending}, nil
	}
	return sending.Template{Fingerprint: it.SK, State: sending.TemplateState(it.State), Reasons: it.Reasons}, nil
}

// DecideTemplate records the review's decision on a template.
func (s *Store) DecideTemplate(ctx context.Context, workspaceID, fingerprint string, state sending.TemplateState, reasons []string, onlyIfPending bool) (bool, error) {
	update := expression.Set(expression.Name("state"), expression.Value(string(state))).
		Set(expression.Name("decided_at"), expression.Value(s.now().UTC())).
		Set(expression.Name("created_at"), expression.IfNotExists(expression.Name("created_at"), expression.Value(s.now().UTC())))
	if len(reasons) > 0 {
		update = update.Set(expression.Name("reasons"), expression.Value(reasons))
	} else {
		update = update.Remove(expression.Name("reasons"))
	}
	cond := noCondition
	if onlyIfPending {
		cond = itemAbsent().Or(expression.Name("state").Equal(expression.Value(string(sending.TemplatePending))))
	}
	err := s.updateItem(ctx, key(templatePK(workspaceID), fingerprint), update, cond, nil)
	if isConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("decide template: %w", err)
	}
	return true, nil
}

// LeaseHeld reserves a held email for one reviewer until until: the lease
// lives on its first content chunk, which exists exactly while it is held.
func (s *Store) LeaseHeld(ctx context.Context, workspaceID, emailID string, now, until time.Time) error {
	cond := itemExists().And(expression.Or(
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
		TableName: &s.Table, Key: key(heldPK(workspaceID, emailID), heldChunkKey(0)),
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
func (s *Store) ListHeld(ctx context.Context, workspaceID, fingerprint string) ([]string, error) {
	in, err := s.partition(schema.GSI1, schema.AttrGSI1PK, heldByTemplatePK(workspaceID, fingerprint))
	if err != nil {
		return nil, err
	}
	items, err := queryAll[heldChunk](ctx, s.DB, in)
	if err != nil {
		return nil, fmt.Errorf("list held: %w", err)
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.GSI1SK)
	}
	return ids, nil
}

func (s *Store) heldChunks(ctx context.Context, workspaceID, emailID string) ([]heldChunk, error) {
	in, err := s.partition("", schema.AttrPK, heldPK(workspaceID, emailID))
	if err != nil {
		return nil, err
	}
	in.ConsistentRead = aws.Bool(true)
	chunks, err := queryAll[heldChunk](ctx, s.DB, in)
	if err != nil {
		return nil, fmt.Errorf("read held content: %w", err)
	}
	return chunks, nil
}

// GetHeld reads a held email and its content.
func (s *Store) GetHeld(ctx context.Context, workspaceID, emailID string) (sending.HeldEmail, error) {
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
func (s *Store) MarkHeldSent(ctx context.Context, workspaceID, emailID, messageID string) error {
	update := expression.Set(expression.Name("sent_message_id"), expression.Value(messageID))
	err := s.updateItem(ctx, key(heldPK(workspaceID, emailID), heldChunkKey(0)), update, itemExists(), nil)
	if isConditionFailed(err) {
		return sending.ErrNotHeld
	}
	if err != nil {
		return fmt.Errorf("mark held email sent: %w", err)
	}
	return nil
}

// ReleaseHeld moves a held email to status and drops its stored content,
// in one transaction that fails with ErrNotHeld unless it is still held.
func (s *Store) ReleaseHeld(ctx context.Context, workspaceID, emailID string, status email.Status, reason string) error {
	chunks, err := s.heldChunks(ctx, workspaceID, emailID)
	if err != nil {
		return err
	}
	if len(chunks) == 0 {
		return sending.ErrNotHeld
	}
	var items []ddbtypes.TransactWriteItem
	for _, c := range chunks {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Table, Key: key(c.PK, c.SK)}})
	}
	u, err := s.emailStatusUpdate(workspaceID, emailID, status, reason, expression.Name("status").Equal(expression.Value(string(email.StatusHeld))))
	if err != nil {
		return err
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append(items, ddbtypes.TransactWriteItem{Update: u})})
	if isTransactionConditionFailed(err) && status == email.StatusSent {
		// SES's first events moved the email on already: only the content
		// is left to drop.
		_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	} else if isTransactionConditionFailed(err) {
		return sending.ErrNotHeld
	}
	if err != nil {
		return fmt.Errorf("release held email: %w", err)
	}
	return nil
}

// AddSuppression puts an address on the workspace's do-not-send list.
func (s *Store) AddSuppression(ctx context.Context, workspaceID, address, reason string) error {
	addr := strings.ToLower(address)
	err := s.putItem(ctx, map[string]any{
		schema.AttrPK: suppressionPK(workspaceID), schema.AttrSK: addr, "email": addr, "reason": reason, "created_at": s.now().UTC(),
	}, noCondition)
	if err != nil {
		return fmt.Errorf("add suppression: %w", err)
	}
	return nil
}

// DeleteHeld removes a held email and its content, for a hold whose review
// could not be queued: the client is told nothing was accepted.
func (s *Store) DeleteHeld(ctx context.Context, workspaceID, emailID string) error {
	chunks, err := s.heldChunks(ctx, workspaceID, emailID)
	if err != nil {
		return err
	}
	items := []ddbtypes.TransactWriteItem{{Delete: &ddbtypes.Delete{TableName: &s.Table, Key: key(emailPK(workspaceID), emailID)}}}
	for _, c := range chunks {
		items = append(items, ddbtypes.TransactWriteItem{Delete: &ddbtypes.Delete{TableName: &s.Table, Key: key(c.PK, c.SK)}})
	}
	if _, err := s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		return fmt.Errorf("delete held email: %w", err)
	}
	return nil
}
