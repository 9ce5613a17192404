package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// suppressionItem is one address of the do-not-send list.
type suppressionItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	Email     string    `dynamodbav:"email"`
	Reason    string    `dynamodbav:"reason"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

// AddSuppression puts an address on the workspace's do-not-send list.
func (s *Suppressions) AddSuppression(ctx context.Context, workspaceID, address, reason string) error {
	addr := strings.ToLower(address)
	err := s.putItem(ctx, suppressionItem{
		PK: suppressionPK(workspaceID), SK: addr, Email: addr, Reason: reason, CreatedAt: s.now().UTC(),
	}, noCondition)
	if err != nil {
		return fmt.Errorf("add suppression: %w", err)
	}
	return nil
}
