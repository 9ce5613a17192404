package suppressiondb

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

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// suppressionItem is one address of the do-not-send list, keyed by the
// address so that a send reads it with a point read; on GSI1 it is listed
// newest first (gsi1sk = created time, then the address).
type suppressionItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	GSI1PK    string    `dynamodbav:"gsi1pk,omitempty"`
	GSI1SK    string    `dynamodbav:"gsi1sk,omitempty"`
	Email     string    `dynamodbav:"email"`
	Reason    string    `dynamodbav:"reason"`
	EmailID   string    `dynamodbav:"email_id,omitempty"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

func (it suppressionItem) suppression() suppression.Suppression {
	return suppression.Suppression{
		Email: it.SK, Reason: suppression.StoredReason(it.Reason), EmailID: it.EmailID, CreatedAt: it.CreatedAt,
	}
}

// maxSortKeyBytes is DynamoDB's limit on a sort key value.
const maxSortKeyBytes = 1024

// suppressionListSK is the GSI1 sort key of an entry: its time first, so a
// reverse Query is newest first, then the address, which makes it unique
// and gives back the table key (a timeKey holds no '#').
func suppressionListSK(created time.Time, address string) string {
	return dynamo.TimeKey(created) + "#" + address
}

// PutSuppression adds an entry unless its address is listed already, in
// one conditional write; a listed address answers its entry as it is (the
// failed condition returns it), so adding is idempotent and keeps the
// first reason, email and time.
func (s *Suppressions) PutSuppression(ctx context.Context, workspaceID string, sup suppression.Suppression) (suppression.Suppression, bool, error) {
	addr := suppression.Key(sup.Email)
	created := sup.CreatedAt
	if created.IsZero() {
		created = s.Time()
	}
	created = created.UTC()
	it := suppressionItem{
		PK: dynamo.SuppressionPK(workspaceID, addr), SK: addr,
		GSI1PK: dynamo.SuppressionListPK(workspaceID), GSI1SK: suppressionListSK(created, addr),
		Email: addr, Reason: string(sup.Reason), EmailID: sup.EmailID, CreatedAt: created,
	}
	p, err := s.PutOf(it, dynamo.ItemAbsent())
	if err != nil {
		return suppression.Suppression{}, false, err
	}
	p.ReturnValuesOnConditionCheckFailure = ddbtypes.ReturnValuesOnConditionCheckFailureAllOld
	err = s.Put(ctx, p)
	var ccf *ddbtypes.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		var old suppressionItem
		if err := attributevalue.UnmarshalMap(ccf.Item, &old); err != nil {
			return suppression.Suppression{}, false, err
		}
		return old.suppression(), false, nil
	}
	if err != nil {
		return suppression.Suppression{}, false, fmt.Errorf("add suppression: %w", err)
	}
	return it.suppression(), true, nil
}

// DeleteSuppression removes the entry of an address and returns it, in
// one conditional delete.
func (s *Suppressions) DeleteSuppression(ctx context.Context, workspaceID, address string) (suppression.Suppression, error) {
	addr := suppression.Key(address)
	if addr == "" || len(addr) > maxSortKeyBytes {
		return suppression.Suppression{}, suppression.ErrNotFound // no key can hold it
	}
	// Its shard and the partition before the shards: an address listed
	// before the upgrade and added again is in both.
	var removed *suppressionItem
	for _, k := range dynamo.SuppressionKeys(workspaceID, addr, true) {
		d, err := s.DeleteOf(k, dynamo.ItemExists())
		if err != nil {
			return suppression.Suppression{}, err
		}
		var it suppressionItem
		err = s.Remove(ctx, d, &it)
		if dynamo.IsConditionFailed(err) {
			continue
		}
		if err != nil {
			return suppression.Suppression{}, fmt.Errorf("delete suppression: %w", err)
		}
		if removed == nil {
			removed = &it
		}
	}
	if removed == nil {
		return suppression.Suppression{}, suppression.ErrNotFound
	}
	return removed.suppression(), nil
}

// ListSuppressions returns the workspace's entries newest first: a reverse
// Query of their GSI1 partition, the reason filtered within it under the
// list read budget. An address filter is a point read instead.
func (s *Suppressions) ListSuppressions(ctx context.Context, workspaceID string, f suppression.Filter, after string, limit int) ([]suppression.Suppression, string, bool, error) {
	if f.Email != "" {
		return s.lookup(ctx, workspaceID, f)
	}
	b := expression.NewBuilder().WithKeyCondition(expression.Key(schema.AttrGSI1PK).Equal(expression.Value(dynamo.SuppressionListPK(workspaceID))))
	if f.Reason != "" {
		b = b.WithFilter(expression.Name("reason").Equal(expression.Value(string(f.Reason))))
	}
	expr, err := b.Build()
	if err != nil {
		return nil, "", false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, IndexName: aws.String(schema.GSI1), ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	if after != "" {
		// The position is the GSI1 sort key, which ends with the address.
		_, addr, ok := strings.Cut(after, "#")
		if !ok {
			return nil, "", false, errors.New("bad suppression position")
		}
		// An entry from before the shards has another table key; the
		// index's sort key alone places the page, for it is unique.
		in.ExclusiveStartKey = dynamo.Key(dynamo.SuppressionPK(workspaceID, addr), addr)
		in.ExclusiveStartKey[schema.AttrGSI1PK] = &ddbtypes.AttributeValueMemberS{Value: dynamo.SuppressionListPK(workspaceID)}
		in.ExclusiveStartKey[schema.AttrGSI1SK] = &ddbtypes.AttributeValueMemberS{Value: after}
	}
	return dynamo.FilteredPage(ctx, s.Table, "suppressions", in, limit, schema.AttrGSI1SK, suppressionItem.suppression)
}

// lookup is the listing of one address: its entry, if it passes f.
func (s *Suppressions) lookup(ctx context.Context, workspaceID string, f suppression.Filter) ([]suppression.Suppression, string, bool, error) {
	it, found, err := s.entry(ctx, workspaceID, f.Email)
	if err != nil {
		return nil, "", false, err
	}
	if !found || !f.Matches(it.suppression()) {
		return nil, "", false, nil
	}
	return []suppression.Suppression{it.suppression()}, "", false, nil
}

// Suppressed reports whether an address is on the workspace's list:
// strongly consistent point reads of its shard, then of the partition
// before the shards.
func (s *Suppressions) Suppressed(ctx context.Context, workspaceID, address string) (bool, error) {
	_, found, err := s.entry(ctx, workspaceID, suppression.Key(address))
	return found, err
}

// entry reads the entry of addr (suppression.Key), wherever it is.
func (s *Suppressions) entry(ctx context.Context, workspaceID, addr string) (suppressionItem, bool, error) {
	var it suppressionItem
	if addr == "" || len(addr) > maxSortKeyBytes {
		return it, false, nil // no key can hold it
	}
	for _, k := range dynamo.SuppressionKeys(workspaceID, addr, true) {
		found, err := s.GetItem(ctx, k, &it)
		if err != nil {
			return it, false, fmt.Errorf("get suppression: %w", err)
		}
		if found {
			return it, true, nil
		}
	}
	return it, false, nil
}

// EachSuppressedAddress calls fn with every address on the workspace's
// do-not-send list, a page at a time, oldest first: one Query of the
// list's GSI1 partition, which holds every entry whatever its shard (and
// those from before the shards); the key only is projected: a segment
// needs the addresses, not why they are there.
func (s *Suppressions) EachSuppressedAddress(ctx context.Context, workspaceID string, fn func(address string) error) error {
	in, err := s.Partition(schema.GSI1, schema.AttrGSI1PK, dynamo.SuppressionListPK(workspaceID))
	if err != nil {
		return err
	}
	in.ProjectionExpression = aws.String("#sk")
	in.ExpressionAttributeNames["#sk"] = schema.AttrSK
	p := dynamodb.NewQueryPaginator(s.DB, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("read the do-not-send list: %w", err)
		}
		var keys []struct {
			SK string `dynamodbav:"sk"`
		}
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &keys); err != nil {
			return err
		}
		for _, k := range keys {
			if err := fn(k.SK); err != nil {
				return err
			}
		}
	}
	return nil
}
