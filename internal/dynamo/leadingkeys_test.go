package dynamo

import (
	"regexp"
	"strings"
	"testing"
)

// The IAM leading-key patterns match the keys the repositories write and
// no key of another kind: a function limited to them writes exactly those
// items.
func TestLeadingKeyPatterns(t *testing.T) {
	like := func(pattern string) *regexp.Regexp { // StringLike: * is any run
		return regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$")
	}
	ws, id := "01a20b29-2fe6-710b-9a09-e0df3df5c4c1", "01a20b29-2fe6-710b-9a09-e0df3df5c4c2"
	cases := map[string]struct {
		pattern string
		match   []string
		not     []string
	}{
		"contacts": {ContactKeysPattern,
			[]string{ContactPK(ws, id), ContactShardPK(ws, 0), ContactShardPK(ws, ContactShards-1)},
			[]string{ContactEmailPK(ws, "ann@example.com"), SuppressionPK(ws, "ann@example.com"), WorkspacePK(ws), KeysPK(ws), APIKeySecretPK("h")}},
		"suppressions": {SuppressionKeysPattern,
			[]string{SuppressionPK(ws, "ann@example.com"), SuppressionPK(ws, "bob@example.com")},
			// The partition before the shards is read and deleted from, never written.
			[]string{LegacySuppressionPK(ws), SuppressionListPK(ws), ContactPK(ws, id), ContactEmailPK(ws, "ann@example.com"), WorkspacePK(ws), WSPK(ws, kindSuppression+"X")}},
		"campaigns": {CampaignKeysPattern,
			[]string{CampaignPK(ws)},
			[]string{CampaignRecipientsPK(ws, id), WSSubPK(ws, KindCampaignProgress, id), WSPK(ws, KindCampaignProgress), DuePK, WorkspacePK(ws)}},
		"campaign recipients": {CampaignRecipientKeysPattern,
			[]string{CampaignRecipientsPK(ws, id)},
			[]string{CampaignPK(ws), WSPK(ws, kindCampaignRecipients), WSSubPK(ws, KindCampaignProgress, id), ContactPK(ws, id)}},
		"idempotency": {IdempotencyKeysPattern,
			[]string{IdempotencyPK(ws, "live:k1"), IdempotencyPK(ws, "test:k2")},
			[]string{EmailPK(ws, id), WSPK(ws, kindIdempotency+"X"), CampaignPK(ws), WorkspacePK(ws)}},
		"emails": {EmailKeysPattern,
			[]string{EmailPK(ws, id), EmailPK(ws, ws)},
			[]string{EmailContentPK(ws, id), WSPK(ws, KindEmail+"X"), FeedPK(ws, id), WorkspacePK(ws)}},
		"campaign due": {CampaignDueKeysPattern,
			[]string{DuePK},
			[]string{PacePK, CampaignPK(ws), APIKeySecretPK("h")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			re := like(tc.pattern)
			for _, k := range tc.match {
				if !re.MatchString(k) {
					t.Errorf("%s does not match %s", tc.pattern, k)
				}
			}
			for _, k := range tc.not {
				if re.MatchString(k) {
					t.Errorf("%s matches %s", tc.pattern, k)
				}
			}
		})
	}
}
