package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// DailyMetrics returns the counters of each day from..to (YYYY-MM-DD,
// inclusive) that has any, by day.
func (s *Metrics) DailyMetrics(ctx context.Context, workspaceID, from, to string) (map[string]map[string]int, error) {
	keyCond := expression.Key(schema.AttrPK).Equal(expression.Value(metricsPK(workspaceID))).
		And(expression.Key(schema.AttrSK).Between(expression.Value(from), expression.Value(to)))
	expr, err := expression.NewBuilder().WithKeyCondition(keyCond).Build()
	if err != nil {
		return nil, err
	}
	p := dynamodb.NewQueryPaginator(s.DB, &dynamodb.QueryInput{
		TableName: &s.Name, KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	days := map[string]map[string]int{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("read metrics: %w", err)
		}
		for _, item := range page.Items {
			day := aws.ToString(stringAttr(item, schema.AttrSK))
			counts := map[string]int{}
			for name, v := range item {
				if name == schema.AttrPK || name == schema.AttrSK {
					continue
				}
				var n int
				if err := attributevalue.Unmarshal(v, &n); err == nil {
					counts[name] = n
				}
			}
			days[day] = counts
		}
	}
	return days, nil
}
