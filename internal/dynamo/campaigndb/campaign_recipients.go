package campaigndb

import (
	"context"
	"fmt"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/dynamo"
)

// chunkItem is up to campaign.ChunkSize frozen recipients of a campaign:
// their contact ids, 16 bytes each, end to end. One item per recipient
// would cost a write unit each; a chunk costs one per 59.
type chunkItem struct {
	PK  string `dynamodbav:"pk"`
	SK  string `dynamodbav:"sk"`
	IDs []byte `dynamodbav:"ids"`
}

// contentItem is a campaign's html, in its recipients' partition: written
// with the chunks, once, and rewritten only by an edit.
type contentItem struct {
	PK   string `dynamodbav:"pk"`
	SK   string `dynamodbav:"sk"`
	HTML string `dynamodbav:"html"`
}

// contentSK is the content item's sort key beside the chunks' numbers.
const contentSK = "html"

// contentKey is the key of a campaign's content item.
func contentKey(workspaceID, campaignID string) map[string]ddbtypes.AttributeValue {
	return dynamo.Key(dynamo.CampaignRecipientsPK(workspaceID, campaignID), contentSK)
}

// chunkSK is chunk n's sort key, zero-padded so chunks sort in order.
func chunkSK(n int) string { return fmt.Sprintf("%06d", n) }

// writeParts stores the campaign's html and ids as its chunks, in batches.
func (s *Campaigns) writeParts(ctx context.Context, workspaceID, campaignID, html string, ids []string) error {
	content, err := s.PutOf(contentItem{PK: dynamo.CampaignRecipientsPK(workspaceID, campaignID), SK: contentSK, HTML: html}, dynamo.NoCondition)
	if err != nil {
		return err
	}
	requests := []ddbtypes.WriteRequest{{PutRequest: &ddbtypes.PutRequest{Item: content.Item}}}
	for n := range campaign.Chunks(len(ids)) {
		part := ids[n*campaign.ChunkSize : min((n+1)*campaign.ChunkSize, len(ids))]
		packed := make([]byte, 0, 16*len(part))
		for _, id := range part {
			u, err := uuid.Parse(id)
			if err != nil {
				return fmt.Errorf("campaign recipient %q: %w", id, err)
			}
			packed = append(packed, u[:]...)
		}
		it := chunkItem{PK: dynamo.ChunkPK(workspaceID, campaignID, n), SK: chunkSK(n), IDs: packed}
		p, err := s.PutOf(it, dynamo.NoCondition)
		if err != nil {
			return err
		}
		requests = append(requests, ddbtypes.WriteRequest{PutRequest: &ddbtypes.PutRequest{Item: p.Item}})
	}
	if err := s.BatchWrite(ctx, requests); err != nil {
		return fmt.Errorf("write campaign recipients: %w", err)
	}
	return nil
}

// deleteParts removes a campaign's chunks and html, best effort: a draft
// that lost its Idempotency-Key to a twin leaves no orphans behind.
func (s *Campaigns) deleteParts(ctx context.Context, workspaceID, campaignID string, chunks int) {
	requests := []ddbtypes.WriteRequest{{DeleteRequest: &ddbtypes.DeleteRequest{Key: contentKey(workspaceID, campaignID)}}}
	for n := range chunks {
		requests = append(requests, ddbtypes.WriteRequest{DeleteRequest: &ddbtypes.DeleteRequest{
			Key: dynamo.Key(dynamo.ChunkPK(workspaceID, campaignID, n), chunkSK(n)),
		}})
	}
	_ = s.BatchWrite(ctx, requests)
}

// ReadChunk returns the contact ids of chunk n of a campaign's frozen
// recipients (campaign.ErrNotFound when there is no such chunk).
func (s *Campaigns) ReadChunk(ctx context.Context, workspaceID, campaignID string, n int) ([]string, error) {
	var it chunkItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.ChunkPK(workspaceID, campaignID, n), chunkSK(n)), &it)
	if err == nil && !found { // frozen before the chunks were sharded
		found, err = s.GetItem(ctx, dynamo.Key(dynamo.CampaignRecipientsPK(workspaceID, campaignID), chunkSK(n)), &it)
	}
	if err != nil {
		return nil, fmt.Errorf("read campaign recipients: %w", err)
	}
	if !found {
		return nil, campaign.ErrNotFound
	}
	if len(it.IDs)%16 != 0 {
		return nil, fmt.Errorf("campaign %s chunk %d: %d bytes is not a whole number of ids", campaignID, n, len(it.IDs))
	}
	ids := make([]string, 0, len(it.IDs)/16)
	for i := 0; i < len(it.IDs); i += 16 {
		ids = append(ids, uuid.UUID(it.IDs[i:i+16]).String())
	}
	return ids, nil
}
