package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/email"
)

// PeekEmail reads the email an SES event is about eventually consistently
// (half a read unit): it may miss an email just written or return an
// older version, which the status pipeline checks (status.Processor).
func (s *Statuses) PeekEmail(ctx context.Context, workspaceID, id string) (email.Email, error) {
	for _, pk := range []string{emailPK(workspaceID, id), legacyEmailPK(workspaceID)} {
		out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.Name, Key: key(pk, id), ConsistentRead: aws.Bool(false)})
		if err != nil {
			return email.Email{}, fmt.Errorf("peek email: %w", err)
		}
		if len(out.Item) > 0 {
			return peeked(out.Item)
		}
	}
	return email.Email{}, email.ErrNotFound
}

func peeked(item map[string]ddbtypes.AttributeValue) (email.Email, error) {
	var it emailItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return email.Email{}, fmt.Errorf("peek email: %w", err)
	}
	return it.email(), nil
}
