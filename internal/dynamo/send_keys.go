package dynamo

import (
	"strings"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The keys a send reads from sharded partitions: the month's usage and
// the do-not-send list, each also where the layout before the shards
// kept it.

// UsageKeys are the items a month's usage is summed from: every shard
// and the item before the shards.
func UsageKeys(ws, month string) []map[string]ddbtypes.AttributeValue {
	pks := UsageShardPKs(ws)
	keys := make([]map[string]ddbtypes.AttributeValue, len(pks))
	for i, pk := range pks {
		keys[i] = Key(pk, month)
	}
	return keys
}

// IsUsagePK reports whether pk is a partition of ws's usage.
func IsUsagePK(ws, pk string) bool {
	base := WSPK(ws, kindUsage)
	return pk == base || strings.HasPrefix(pk, base+"#")
}

// IsSuppressionPK reports whether pk is a partition of ws's do-not-send
// list (a shard, or the one before the shards).
func IsSuppressionPK(ws, pk string) bool {
	base := LegacySuppressionPK(ws)
	return pk == base || strings.HasPrefix(pk, base+"#")
}

// SuppressionKeys are where address (suppression.Key) may be listed: its
// shard, and unless old is false the partition before the shards.
func SuppressionKeys(ws, address string, old bool) []map[string]ddbtypes.AttributeValue {
	keys := []map[string]ddbtypes.AttributeValue{Key(SuppressionPK(ws, address), address)}
	if old {
		keys = append(keys, Key(LegacySuppressionPK(ws), address))
	}
	return keys
}
