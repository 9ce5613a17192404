package metricsdb

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// DailyMetrics returns the counters of each day from..to (YYYY-MM-DD,
// inclusive) that has any, by day: the sums of the day's shards (and of
// the layout before them), read in parallel.
func (s *Metrics) DailyMetrics(ctx context.Context, workspaceID, from, to string) (map[string]map[string]int, error) {
	days := map[string]map[string]int{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for _, pk := range dynamo.MetricsShardPKs(workspaceID) {
		g.Go(func() error {
			shard, err := s.dailyMetrics(gctx, pk, from, to)
			mu.Lock()
			defer mu.Unlock()
			for day, counts := range shard {
				if days[day] == nil {
					days[day] = map[string]int{}
				}
				for name, n := range counts {
					days[day][name] += n
				}
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return days, nil
}

// dailyMetrics reads the counters of one partition of them.
func (s *Metrics) dailyMetrics(ctx context.Context, pk, from, to string) (map[string]map[string]int, error) {
	keyCond := expression.Key(schema.AttrPK).Equal(expression.Value(pk)).
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
			day := aws.ToString(dynamo.StringAttr(item, schema.AttrSK))
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
