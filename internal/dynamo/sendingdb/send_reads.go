package sendingdb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// sumUsage adds up the usage items of one month.
func sumUsage(items []map[string]ddbtypes.AttributeValue) (int, error) {
	total := 0
	for _, item := range items {
		var it UsageItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return 0, err
		}
		total += it.Sent
	}
	return total, nil
}

// monthlyUsage reads the month's live sends exactly: every shard of the
// counter in one strongly consistent BatchGetItem, summed.
func monthlyUsage(ctx context.Context, t *dynamo.Table, ws, month string) (int, error) {
	items, err := t.BatchGet(ctx, dynamo.UsageKeys(ws, month))
	if err != nil {
		return 0, fmt.Errorf("read usage: %w", err)
	}
	return sumUsage(items)
}

// MonthlyUsage reads the month's live sends, the allowance's counter.
func (s *Sends) MonthlyUsage(ctx context.Context, workspaceID, month string) (int, error) {
	return monthlyUsage(ctx, s.Table, workspaceID, month)
}

// OldSuppressions reports whether the workspace still has do-not-send
// entries in the partition before the shards: one Query of at most one
// key. Nothing is written there any more, so once false it stays false.
func (s *Sends) OldSuppressions(ctx context.Context, workspaceID string) (bool, error) {
	in, err := s.Partition("", schema.AttrPK, dynamo.LegacySuppressionPK(workspaceID))
	if err != nil {
		return false, err
	}
	in.Limit = aws.Int32(1)
	out, err := s.DB.Query(ctx, in)
	if err != nil {
		return false, fmt.Errorf("read the old do-not-send partition: %w", err)
	}
	return len(out.Items) > 0, nil
}
