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
			[]string{contactPK(ws, id), contactShardPK(ws, 0), contactShardPK(ws, contactShards-1)},
			[]string{contactEmailPK(ws, "ann@example.com"), suppressionPK(ws, "ann@example.com"), workspacePK(ws), keysPK(ws), apiKeySecretPK("h")}},
		"suppressions": {SuppressionKeysPattern,
			[]string{suppressionPK(ws, "ann@example.com"), suppressionPK(ws, "bob@example.com")},
			// The partition before the shards is read and deleted from, never written.
			[]string{legacySuppressionPK(ws), suppressionListPK(ws), contactPK(ws, id), contactEmailPK(ws, "ann@example.com"), workspacePK(ws), wsPK(ws, kindSuppression+"X")}},
		"campaigns": {CampaignKeysPattern,
			[]string{campaignPK(ws)},
			[]string{campaignRecipientsPK(ws, id), wsSubPK(ws, kindCampaignProgress, id), wsPK(ws, kindCampaignProgress), duePK, workspacePK(ws)}},
		"campaign recipients": {CampaignRecipientKeysPattern,
			[]string{campaignRecipientsPK(ws, id)},
			[]string{campaignPK(ws), wsPK(ws, kindCampaignRecipients), wsSubPK(ws, kindCampaignProgress, id), contactPK(ws, id)}},
		"idempotency": {IdempotencyKeysPattern,
			[]string{idempotencyPK(ws, "live:k1"), idempotencyPK(ws, "test:k2")},
			[]string{emailPK(ws, id), wsPK(ws, kindIdempotency+"X"), campaignPK(ws), workspacePK(ws)}},
		"emails": {EmailKeysPattern,
			[]string{emailPK(ws, id), emailPK(ws, ws)},
			[]string{emailContentPK(ws, id), wsPK(ws, kindEmail+"X"), feedPK(ws, id), workspacePK(ws)}},
		"campaign due": {CampaignDueKeysPattern,
			[]string{duePK},
			[]string{pacePK, campaignPK(ws), apiKeySecretPK("h")}},
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
