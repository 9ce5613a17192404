package dynamo

import "testing"

// The hot-key model's classes: a workspace's sharded collections spread
// over their shards, the layout before over one partition, and a
// Partition per thing not at all.
func TestSpread(t *testing.T) {
	ws, id := "01a20b29-2fe6-710b-9a09-e0df3df5c4c1", "01a20b29-2fe6-710b-9a09-e0df3df5c4c2"
	for _, tc := range []struct {
		pk         string
		class      string
		partitions int
	}{
		{EmailPK(ws, id), "WS#<ws>#EMAIL#<shard>", emailShards},
		{LegacyEmailPK(ws), "WS#<ws>#EMAIL", 1},
		{FeedPK(ws, "evt_1"), "WS#<ws>#EVENT#<shard>", feedShards},
		{IdempotencyPK(ws, "live:k"), "WS#<ws>#IDEM#<shard>", idempotencyShards},
		{WebhookAttemptPK(ws, id, id), "WS#<ws>#WHATTEMPT#<endpoint>#<shard>", attemptShards},
		{WSSubPK(ws, KindWebhookAttempt, id), "WS#<ws>#WHATTEMPT#<endpoint>", 1},
		{WorkspacePK(ws), "WS#<ws>#WORKSPACE", 1},
		{EmailContentPK(ws, id), "WS#<ws>#BODY#<id>", 0},
		{ChunkPK(ws, id, 3), "WS#<ws>#CAMPAIGNRCPT#<id>", 0},
		{APIKeySecretPK("abc"), APIKeySecretPK("abc"), 0},
		{PacePK, PacePK, 1},
		{"GSI1 " + SuppressionListPK(ws), "GSI1 WS#<ws>#SUPPRESSIONS", 1},
	} {
		class, n := Spread(tc.pk)
		if class != tc.class || n != tc.partitions {
			t.Errorf("Spread(%s) = %s, %d; want %s, %d", tc.pk, class, n, tc.class, tc.partitions)
		}
	}
}
