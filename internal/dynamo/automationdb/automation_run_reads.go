package automationdb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// AutomationIDs are the ids of the workspace's automations, oldest first:
// one Query of their partition returning only the keys, under which the
// owner looks for a run known by its id alone.
func (s *AutomationRuns) AutomationIDs(ctx context.Context, workspaceID string) ([]string, error) {
	in, err := s.Partition("", schema.AttrPK, dynamo.WSPK(workspaceID, dynamo.KindAutomation))
	if err != nil {
		return nil, err
	}
	in.ProjectionExpression = aws.String("#id")
	in.ExpressionAttributeNames["#id"] = schema.AttrSK
	type idItem struct {
		SK string `dynamodbav:"sk"`
	}
	items, err := dynamo.QueryAll[idItem](ctx, s.DB, in)
	if err != nil {
		return nil, fmt.Errorf("list automation ids: %w", err)
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.SK)
	}
	return ids, nil
}
