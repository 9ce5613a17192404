package dynamo

import (
	"strconv"
	"strings"
)

// shardedKinds are the kinds a workspace spreads over shards, with how
// many: a key of one of them without a shard is of the layout before.
var shardedKinds = map[string]int{
	kindContact: ContactShards, kindContactEmail: ContactShards,
	KindEmail: emailShards, kindEvent: feedShards, kindIdempotency: idempotencyShards,
	kindDedupe: dedupeShards, kindMetrics: CounterShards, KindWebhookAttempt: attemptShards,
	kindSuppression: SuppressionShards, kindUsage: UsageShards,
}

// perEndpoint are the kinds with a partition (or its shards) per webhook
// endpoint: every email's events heat the one endpoint's.
var perEndpoint = map[string]bool{KindWebhookAttempt: true}

// Spread names the partition key pk for the hot-key model: its class
// (the key with the workspace id and the shard replaced by placeholders)
// and how many partitions a workspace's load of that class spreads over.
// Zero is a partition per thing (an email's content, a campaign's
// recipients, an API key): its load does not grow with the workspace's
// rate. An index's key is "<index> <key>".
func Spread(pk string) (class string, partitions int) {
	if index, k, ok := strings.Cut(pk, " "); ok {
		class, partitions = Spread(k)
		return index + " " + class, partitions
	}
	ws, kind, ok := WorkspaceOf(pk)
	if !ok {
		switch pk {
		case PacePK, DuePK, AutoTickPK:
			return pk, 1
		}
		return pk, 0
	}
	base := WSPK("<ws>", kind)
	sub := strings.TrimPrefix(pk, WSPK(ws, kind))
	sub = strings.TrimPrefix(sub, "#")
	if perEndpoint[kind] {
		_, shard, _ := strings.Cut(sub, "#")
		base += "#<endpoint>"
		if shard == "" {
			return base, 1
		}
		sub = shard
	}
	if sub == "" {
		return base, 1
	}
	if n, ok := shardedKinds[kind]; ok {
		if _, err := strconv.Atoi(sub); err == nil {
			return base + "#<shard>", n
		}
	}
	return base + "#<id>", 0
}
