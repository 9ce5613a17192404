// Package dynamo is the core of the repository layer over Sesame's single
// DynamoDB table: the client and its fault mapping (table.go, faults.go),
// the key layout with every prefix and its shards (layout.go), the merge of
// sharded lists (shardmerge.go) and the heat classes (heat.go). It imports
// no entity package; each entity's repository is in a storage package of
// its own beside it (emaildb, contactdb, …), which imports this core.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// DB is the part of the DynamoDB API Sesame uses; *dynamodb.Client has it,
// and tests wrap it to count calls or inject faults.
type DB interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// Table is the one table every repository reads and writes: the client,
// the table's name and the clock. Each repository (Emails, Keys, …) embeds
// it and adds the methods of its entity.
type Table struct {
	DB   DB
	Name string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Open is the table name over a DynamoDB client built from cfg, as a
// function uses it. No call is made until the first request.
func Open(cfg aws.Config, name string) *Table {
	return NewTable(newClientDB(dynamodb.NewFromConfig(cfg)), name)
}

// Time is the table's clock now: a method value of it follows a Now set
// later (a test's clock set after the services were built).
func (s *Table) Time() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// IsConditionFailed reports whether err is a failed condition check.
func IsConditionFailed(err error) bool {
	var ccf *ddbtypes.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// IsTransactionConditionFailed reports whether a transaction was cancelled
// because one of its conditions failed.
func IsTransactionConditionFailed(err error) bool {
	var tce *ddbtypes.TransactionCanceledException
	if !errors.As(err, &tce) {
		return false
	}
	for _, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) == "ConditionalCheckFailed" {
			return true
		}
	}
	return false
}

// TableAdmin is the part of the DynamoDB API that creates tables.
type TableAdmin interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// EnsureTable creates the table from Table (keys, GSIs, TTL) unless it
// exists. The CDK stack builds the deployed table from the same schema.
func EnsureTable(ctx context.Context, db TableAdmin, name string) error {
	_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &name})
	if err == nil {
		return nil
	}
	var nf *ddbtypes.ResourceNotFoundException
	if !errors.As(err, &nf) {
		return fmt.Errorf("describe table %s: %w", name, err)
	}
	in := &dynamodb.CreateTableInput{
		TableName:   &name,
		BillingMode: ddbtypes.BillingModePayPerRequest,
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String(schema.Table.PartitionKey), KeyType: ddbtypes.KeyTypeHash},
			{AttributeName: aws.String(schema.Table.SortKey), KeyType: ddbtypes.KeyTypeRange},
		},
	}
	for _, attr := range schema.Table.KeyAttributes() {
		in.AttributeDefinitions = append(in.AttributeDefinitions, ddbtypes.AttributeDefinition{
			AttributeName: aws.String(attr), AttributeType: ddbtypes.ScalarAttributeTypeS,
		})
	}
	for _, ix := range schema.Table.Indexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, ddbtypes.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name),
			KeySchema: []ddbtypes.KeySchemaElement{
				{AttributeName: aws.String(ix.PartitionKey), KeyType: ddbtypes.KeyTypeHash},
				{AttributeName: aws.String(ix.SortKey), KeyType: ddbtypes.KeyTypeRange},
			},
			Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll},
		})
	}
	if _, err := db.CreateTable(ctx, in); err != nil {
		var inUse *ddbtypes.ResourceInUseException
		if errors.As(err, &inUse) {
			return nil // created concurrently
		}
		return fmt.Errorf("create table %s: %w", name, err)
	}
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: &name,
		TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{
			AttributeName: aws.String(schema.Table.TTLAttribute), Enabled: aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("enable ttl on %s: %w", name, err)
	}
	return nil
}

// GetItem reads the item at k into dst, strongly consistent; false when
// there is none.
func (s *Table) GetItem(ctx context.Context, k map[string]ddbtypes.AttributeValue, dst any) (bool, error) {
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.Name, Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return false, err
	}
	if len(out.Item) == 0 {
		return false, nil
	}
	return true, attributevalue.UnmarshalMap(out.Item, dst)
}

// Partition is the Query of every item whose key attribute name equals
// value, on index ("" for the table), oldest first.
func (s *Table) Partition(index, name, value string) (*dynamodb.QueryInput, error) {
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(name).Equal(expression.Value(value))).Build()
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	return in, nil
}

// QueryAll runs in to the last page and unmarshals every item as a T.
func QueryAll[T any](ctx context.Context, db DB, in *dynamodb.QueryInput) ([]T, error) {
	var out []T
	p := dynamodb.NewQueryPaginator(db, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		var items []T
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// batchGetMax and batchWriteMax are DynamoDB's limits of keys per
// BatchGetItem and of requests per BatchWriteItem; batchWriters is how many
// BatchWriteItems run at once (a draft of 100,000 recipients is 100 chunks).
const (
	batchGetMax   = 100
	batchWriteMax = 25
	batchWriters  = 4
)

// batchRounds bounds the calls one batch makes: DynamoDB answers a
// throttled batch in a successful response with items left unprocessed,
// which the SDK's retries do not see, so they are sent again after a
// growing pause and, still unprocessed after batchRounds calls, reported
// as the store fault they are.
const batchRounds = 5

// beforeRound waits before round n of a batch (none before the first) and
// fails once the batch has had its batchRounds.
func beforeRound(ctx context.Context, n int) error {
	if n == 0 {
		return nil
	}
	if n == batchRounds {
		return StoreFault(errors.New("items left unprocessed"))
	}
	select {
	case <-ctx.Done():
		return StoreFault(ctx.Err())
	case <-time.After(time.Duration(n*n) * 20 * time.Millisecond):
		return nil
	}
}

// BatchGet reads keys with strong consistency in BatchGetItems of
// batchGetMax, retrying unprocessed keys (beforeRound); the items found
// come back in no particular order.
func (s *Table) BatchGet(ctx context.Context, keys []map[string]ddbtypes.AttributeValue) ([]map[string]ddbtypes.AttributeValue, error) {
	var out []map[string]ddbtypes.AttributeValue
	for start := 0; start < len(keys); start += batchGetMax {
		req := map[string]ddbtypes.KeysAndAttributes{s.Name: {Keys: keys[start:min(start+batchGetMax, len(keys))], ConsistentRead: aws.Bool(true)}}
		for round := 0; len(req) > 0; round++ {
			if err := beforeRound(ctx, round); err != nil {
				return nil, fmt.Errorf("batch get: %w", err)
			}
			res, err := s.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("batch get: %w", err)
			}
			out = append(out, res.Responses[s.Name]...)
			req = res.UnprocessedKeys
		}
	}
	return out, nil
}

// BatchWrite runs requests in BatchWriteItems of batchWriteMax,
// batchWriters at once, retrying unprocessed requests (beforeRound).
func (s *Table) BatchWrite(ctx context.Context, requests []ddbtypes.WriteRequest) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(batchWriters)
	for start := 0; start < len(requests); start += batchWriteMax {
		batch := requests[start:min(start+batchWriteMax, len(requests))]
		g.Go(func() error {
			pending := map[string][]ddbtypes.WriteRequest{s.Name: batch}
			for round := 0; len(pending) > 0; round++ {
				if err := beforeRound(ctx, round); err != nil {
					return err
				}
				out, err := s.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
				if err != nil {
					return err
				}
				pending = out.UnprocessedItems
			}
			return nil
		})
	}
	return g.Wait()
}

// listReadBudget bounds the items one filtered list request examines, so a
// rare filter value cannot make one request read a whole history. When the
// budget runs out the page is shorter and has_more is true.
const listReadBudget = 1000

// FilteredPage reads one page of the Query in, whose filter may drop
// items: up to limit items that pass, each converted, the position to
// continue after (the posAttr key attribute of the last item, or of where
// the read stopped) and whether more may follow. It reads one more than
// limit to tell, and stops early, with a shorter page, once listReadBudget
// items were examined.
func FilteredPage[I, T any](ctx context.Context, s *Table, what string, in *dynamodb.QueryInput, limit int, posAttr string, conv func(I) T) ([]T, string, bool, error) {
	var items []map[string]ddbtypes.AttributeValue
	var last map[string]ddbtypes.AttributeValue
	more, examined := false, 0
	for last == nil {
		in.Limit = aws.Int32(int32(min(limit+1-len(items), listReadBudget-examined)))
		out, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, "", false, fmt.Errorf("query %s: %w", what, err)
		}
		examined += int(out.ScannedCount)
		items = append(items, out.Items...)
		switch {
		case len(items) > limit:
			items, last, more = items[:limit], items[limit-1], true
		case len(out.LastEvaluatedKey) == 0:
			last = map[string]ddbtypes.AttributeValue{}
		case examined >= listReadBudget:
			last, more = out.LastEvaluatedKey, true
		default:
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	var decoded []I
	if err := attributevalue.UnmarshalListOfMaps(items, &decoded); err != nil {
		return nil, "", false, err
	}
	page := make([]T, 0, len(decoded))
	for _, it := range decoded {
		page = append(page, conv(it))
	}
	if !more {
		return page, "", false, nil
	}
	return page, aws.ToString(StringAttr(last, posAttr)), true, nil
}

// ListPartition reads a whole partition of the table as T items.
func ListPartition[T any](ctx context.Context, s *Table, pk string) ([]T, error) {
	in, err := s.Partition("", schema.AttrPK, pk)
	if err != nil {
		return nil, err
	}
	return QueryAll[T](ctx, s.DB, in)
}

// GetAs reads the item at k and converts it, or returns notFound; other
// errors are wrapped with what was being read.
func GetAs[I, T any](ctx context.Context, s *Table, what string, k map[string]ddbtypes.AttributeValue, conv func(I) T, notFound error) (T, error) {
	var it I
	var zero T
	found, err := s.GetItem(ctx, k, &it)
	if err != nil {
		return zero, fmt.Errorf("get %s: %w", what, err)
	}
	if !found {
		return zero, notFound
	}
	return conv(it), nil
}

// ListAs reads a whole partition of the table and converts every item.
func ListAs[I, T any](ctx context.Context, s *Table, what, pk string, conv func(I) T) ([]T, error) {
	items, err := ListPartition[I](ctx, s, pk)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", what, err)
	}
	out := make([]T, 0, len(items))
	for _, it := range items {
		out = append(out, conv(it))
	}
	return out, nil
}

// PutOf is the write of item, under cond when it is set; run it with Put,
// or put it in a transaction.
func (s *Table) PutOf(item any, cond expression.ConditionBuilder) (*ddbtypes.Put, error) {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return nil, err
	}
	p := &ddbtypes.Put{TableName: &s.Name, Item: av}
	if cond.IsSet() {
		expr, err := conditionExpr(cond)
		if err != nil {
			return nil, err
		}
		p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues = expr.Condition(), expr.Names(), expr.Values()
	}
	return p, nil
}

// Put runs p on its own.
func (s *Table) Put(ctx context.Context, p *ddbtypes.Put) error {
	_, err := s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: p.TableName, Item: p.Item, ConditionExpression: p.ConditionExpression,
		ExpressionAttributeNames: p.ExpressionAttributeNames, ExpressionAttributeValues: p.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: p.ReturnValuesOnConditionCheckFailure,
	})
	return err
}

// PutItem writes item, under cond when it is set (see PutOf and Put).
func (s *Table) PutItem(ctx context.Context, item any, cond expression.ConditionBuilder) error {
	p, err := s.PutOf(item, cond)
	if err != nil {
		return err
	}
	return s.Put(ctx, p)
}

// WorkspaceCheck is the transaction item that fails unless the workspace
// exists.
func (s *Table) WorkspaceCheck(workspaceID string) (ddbtypes.TransactWriteItem, error) {
	expr, err := conditionExpr(ItemExists())
	if err != nil {
		return ddbtypes.TransactWriteItem{}, err
	}
	return ddbtypes.TransactWriteItem{ConditionCheck: &ddbtypes.ConditionCheck{
		TableName: &s.Name, Key: WorkspaceKey(workspaceID),
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(),
	}}, nil
}

func conditionExpr(c expression.ConditionBuilder) (expression.Expression, error) {
	return expression.NewBuilder().WithCondition(c).Build()
}

// UpdateOf is the update of the item at k, under cond when it is set; run
// it with Update, or put it in a transaction.
func (s *Table) UpdateOf(k map[string]ddbtypes.AttributeValue, update expression.UpdateBuilder, cond expression.ConditionBuilder) (*ddbtypes.Update, error) {
	b := expression.NewBuilder().WithUpdate(update)
	if cond.IsSet() {
		b = b.WithCondition(cond)
	}
	expr, err := b.Build()
	if err != nil {
		return nil, err
	}
	return &ddbtypes.Update{
		TableName: &s.Name, Key: k, UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}, nil
}

// Update runs u; when after is not nil it receives the item as it is after
// the update. A failed condition comes back as DynamoDB's exception
// (IsConditionFailed), holding the item when u asks for it
// (ReturnValuesOnConditionCheckFailure).
func (s *Table) Update(ctx context.Context, u *ddbtypes.Update, after any) error {
	in := &dynamodb.UpdateItemInput{
		TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
		ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
		ExpressionAttributeValues:           u.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: u.ReturnValuesOnConditionCheckFailure,
	}
	if after != nil {
		in.ReturnValues = ddbtypes.ReturnValueAllNew
	}
	out, err := s.DB.UpdateItem(ctx, in)
	if err != nil || after == nil {
		return err
	}
	return attributevalue.UnmarshalMap(out.Attributes, after)
}

// UpdateItem applies update to the item at k (see UpdateOf and Update).
func (s *Table) UpdateItem(ctx context.Context, k map[string]ddbtypes.AttributeValue, update expression.UpdateBuilder, cond expression.ConditionBuilder, after any) error {
	u, err := s.UpdateOf(k, update, cond)
	if err != nil {
		return err
	}
	return s.Update(ctx, u, after)
}

// DeleteOf is the delete of the item at k under cond; run it with
// Remove, or put it in a transaction.
func (s *Table) DeleteOf(k map[string]ddbtypes.AttributeValue, cond expression.ConditionBuilder) (*ddbtypes.Delete, error) {
	expr, err := conditionExpr(cond)
	if err != nil {
		return nil, err
	}
	return &ddbtypes.Delete{
		TableName: &s.Name, Key: k, ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}, nil
}

// Remove runs d; when before is not nil it receives the item as it was. A
// failed condition comes back as DynamoDB's exception (IsConditionFailed).
func (s *Table) Remove(ctx context.Context, d *ddbtypes.Delete, before any) error {
	in := &dynamodb.DeleteItemInput{
		TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
		ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: d.ReturnValuesOnConditionCheckFailure,
	}
	if before != nil {
		in.ReturnValues = ddbtypes.ReturnValueAllOld
	}
	out, err := s.DB.DeleteItem(ctx, in)
	if err != nil || before == nil {
		return err
	}
	return attributevalue.UnmarshalMap(out.Attributes, before)
}

// DeleteExisting deletes the item at k if it is there; false when it was
// not.
func (s *Table) DeleteExisting(ctx context.Context, k map[string]ddbtypes.AttributeValue) (bool, error) {
	d, err := s.DeleteOf(k, ItemExists())
	if err != nil {
		return false, err
	}
	err = s.Remove(ctx, d, nil)
	if IsConditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}

// NoCondition is the zero condition: the write happens whatever is there.
var NoCondition expression.ConditionBuilder

// ItemExists and itemAbsent are the conditions that the item is, or is not
// yet, there.
func ItemExists() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(schema.AttrPK))
}

func ItemAbsent() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(schema.AttrPK))
}

// checksumStep is the DynamoDB client's step that checks each response's
// CRC32 (dynamodb.Options.DisableValidateResponseChecksum leaves it out).
const checksumStep = "DynamoDB:ResponseChecksumValidation"

// WithoutResponseChecksums, among an aws.Config's APIOptions, leaves the
// CRC32 check out of every DynamoDB client built from that config, as
// DisableValidateResponseChecksum does for one client. DynamoDB Local's
// CRC32s do not always match: the console sets it for a function it runs
// on the local stack. Other clients have no such step.
func WithoutResponseChecksums(stack *middleware.Stack) error {
	if _, ok := stack.Deserialize.Get(checksumStep); !ok {
		return nil
	}
	_, err := stack.Deserialize.Remove(checksumStep)
	return err
}

// Transact runs a transaction and returns the indexes of the items whose
// condition failed (nil when it committed). A cancellation by a
// concurrent transaction is retried after a short random pause, so the
// answer is the state after the other one; one still cancelled after
// TransactRetries is the store fault NewTable made of it.
func (s *Table) Transact(ctx context.Context, items []ddbtypes.TransactWriteItem) ([]int, error) {
	for attempt := 0; ; attempt++ {
		_, err := s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		var tce *ddbtypes.TransactionCanceledException
		if !errors.As(err, &tce) {
			return nil, err
		}
		var failed []int
		conflict := false
		for i, r := range tce.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "ConditionalCheckFailed":
				failed = append(failed, i)
			case "TransactionConflict":
				conflict = true
			}
		}
		if len(failed) > 0 {
			return failed, nil
		}
		if !conflict || attempt == TransactRetries {
			return nil, err // a store fault (storeFault)
		}
		pause := time.Duration(5+rand.IntN(20<<min(attempt, 4))) * time.Millisecond
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// TransactGuarded writes items at once, the first a guard on what the
// caller read (a version, a step): moved when the guard failed its
// condition or met a concurrent write, so the caller reads again.
func (s *Table) TransactGuarded(ctx context.Context, items []ddbtypes.TransactWriteItem, moved error) error {
	_, err := s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tce *ddbtypes.TransactionCanceledException
	if errors.As(err, &tce) && len(tce.CancellationReasons) > 0 {
		switch aws.ToString(tce.CancellationReasons[0].Code) {
		case "ConditionalCheckFailed", "TransactionConflict":
			return moved
		}
	}
	return err
}

// StringAttr is the string attribute name of item, nil when it has none.
func StringAttr(item map[string]ddbtypes.AttributeValue, name string) *string {
	if v, ok := item[name].(*ddbtypes.AttributeValueMemberS); ok {
		return &v.Value
	}
	return nil
}

// TransactRetries bounds the retries of a transaction cancelled by a
// concurrent one on the same items (20 creates of one address at once).
const TransactRetries = 8
