package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// usageKeys are the items a month's usage is summed from: every shard
// and the item before the shards.
func usageKeys(ws, month string) []map[string]ddbtypes.AttributeValue {
	pks := usageShardPKs(ws)
	keys := make([]map[string]ddbtypes.AttributeValue, len(pks))
	for i, pk := range pks {
		keys[i] = key(pk, month)
	}
	return keys
}

// isUsagePK reports whether pk is a partition of ws's usage.
func isUsagePK(ws, pk string) bool {
	base := wsPK(ws, kindUsage)
	return pk == base || strings.HasPrefix(pk, base+"#")
}

// isSuppressionPK reports whether pk is a partition of ws's do-not-send
// list (a shard, or the one before the shards).
func isSuppressionPK(ws, pk string) bool {
	base := legacySuppressionPK(ws)
	return pk == base || strings.HasPrefix(pk, base+"#")
}

// suppressionKeys are where address (suppression.Key) may be listed: its
// shard, and unless old is false the partition before the shards.
func suppressionKeys(ws, address string, old bool) []map[string]ddbtypes.AttributeValue {
	keys := []map[string]ddbtypes.AttributeValue{key(suppressionPK(ws, address), address)}
	if old {
		keys = append(keys, key(legacySuppressionPK(ws), address))
	}
	return keys
}

// sumUsage adds up the usage items of one month.
func sumUsage(items []map[string]ddbtypes.AttributeValue) (int, error) {
	total := 0
	for _, item := range items {
		var it usageItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return 0, err
		}
		total += it.Sent
	}
	return total, nil
}

// monthlyUsage reads the month's live sends exactly: every shard of the
// counter in one strongly consistent BatchGetItem, summed.
func monthlyUsage(ctx context.Context, t *Table, ws, month string) (int, error) {
	items, err := t.batchGet(ctx, usageKeys(ws, month))
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
	in, err := s.partition("", schema.AttrPK, legacySuppressionPK(workspaceID))
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
