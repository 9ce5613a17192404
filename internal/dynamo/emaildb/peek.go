package emaildb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
)

// PeekEmail reads an email eventually consistently (half a read unit): it
// may miss an email just written or return an older version, which its
// caller checks (the status pipeline's status.Processor).
func (s *Emails) PeekEmail(ctx context.Context, workspaceID, id string) (email.Email, error) {
	for _, pk := range []string{dynamo.EmailPK(workspaceID, id), dynamo.LegacyEmailPK(workspaceID)} {
		out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.Name, Key: dynamo.Key(pk, id), ConsistentRead: aws.Bool(false)})
		if err != nil {
			return email.Email{}, fmt.Errorf("peek email: %w", err)
		}
		if len(out.Item) > 0 {
			var it EmailItem
			if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
				return email.Email{}, fmt.Errorf("peek email: %w", err)
			}
			return it.email(), nil
		}
	}
	return email.Email{}, email.ErrNotFound
}
