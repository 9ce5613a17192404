package emaildb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
)

type ClickItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	URL       string    `dynamodbav:"url"`
	UserAgent string    `dynamodbav:"user_agent,omitempty"`
	ClickedAt time.Time `dynamodbav:"clicked_at"`
}

// ListClicks returns up to limit clicks of an email, newest first, and
// whether more exist.
func (s *Clicks) ListClicks(ctx context.Context, workspaceID, emailID string, limit int) ([]email.Click, bool, error) {
	items, _, more, err := s.QueryPage(ctx, dynamo.ClickPK(workspaceID, emailID), "", limit)
	if err != nil {
		return nil, false, fmt.Errorf("list clicks: %w", err)
	}
	out := make([]email.Click, 0, len(items))
	for _, item := range items {
		var it ClickItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, false, err
		}
		out = append(out, email.Click{URL: it.URL, UserAgent: it.UserAgent, ClickedAt: it.ClickedAt})
	}
	return out, more, nil
}
