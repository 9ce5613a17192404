package accountdb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
)

// CountConnectionSends adds n to the audit entry of connection c's emails
// in the hour starting at hour, creating it on the hour's first: one
// UpdateItem per request, so a connection's volume never becomes one
// audit write per email.
func (s *Owners) CountConnectionSends(ctx context.Context, workspaceID string, c email.Connection, hour time.Time, n int) error {
	hour = hour.UTC()
	k := dynamo.Key(dynamo.AuditPK(workspaceID), dynamo.TimeKey(hour)+"#"+account.ActionConnectionSent+"#"+c.GrantID)
	actor := "client:" + c.ClientName
	if c.ClientName == "" {
		actor = "client:" + c.ClientID
	}
	update := expression.Set(expression.Name("workspace_id"), expression.Value(workspaceID)).
		Set(expression.Name("actor"), expression.Value(actor)).
		Set(expression.Name("action"), expression.Value(account.ActionConnectionSent)).
		Set(expression.Name("target"), expression.Value(c.GrantID)).
		Set(expression.Name("at"), expression.IfNotExists(expression.Name("at"), expression.Value(s.Time().UTC()))).
		Add(expression.Name("count"), expression.Value(n))
	if err := s.UpdateItem(ctx, k, update, dynamo.NoCondition, nil); err != nil {
		return fmt.Errorf("count connection sends: %w", err)
	}
	return nil
}
