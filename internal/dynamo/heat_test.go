package dynamo

import "testing"

// The hot-key model's classes: a workspace's sharded collections spread
// over their shards, the layout before over one partition, and a
// partition per thing not at all.
func TestSpread(t *testing.T) {
	ws, id := "01a20b29-2fe6-710b-9a09-e0df3df5c4c1", "01a20b29-2fe6-710b-9a09-e0df3df5c4c2"
	for _, tc := range []struct {
		pk         string
		class      string
		partitions int
	}{
		{emailPK(ws, id), "WS#<ws>#EMAIL#<shard>", emailShards},
		{legacyEmailPK(ws), "WS#<ws>#EMAIL", 1},
		{feedPK(ws, "evt_1"), "WS#<ws>#EVENT#<shard>", feedShards},
		{idempotencyPK(ws, "live:k"), "WS#<ws>#IDEM#<shard>", idempotencyShards},
		{webhookAttemptPK(ws, id, id), "WS#<ws>#WHATTEMPT#<endpoint>#<shard>", attemptShards},
		{wsSubPK(ws, kindWebhookAttempt, id), "WS#<ws>#WHATTEMPT#<endpoint>", 1},
		{workspacePK(ws), "WS#<ws>#WORKSPACE", 1},
		{emailContentPK(ws, id), "WS#<ws>#BODY#<id>", 0},
		{chunkPK(ws, id, 3), "WS#<ws>#CAMPAIGNRCPT#<id>", 0},
		{apiKeySecretPK("abc"), apiKeySecretPK("abc"), 0},
		{pacePK, pacePK, 1},
		{"GSI1 " + suppressionListPK(ws), "GSI1 WS#<ws>#SUPPRESSIONS", 1},
	} {
		class, n := Spread(tc.pk)
		if class != tc.class || n != tc.partitions {
			t.Errorf("Spread(%s) = %s, %d; want %s, %d", tc.pk, class, n, tc.class, tc.partitions)
		}
	}
}
