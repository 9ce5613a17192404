package capacitydb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
)

// Pace is the ledger of bulk send slots (capacity.SlotStore): one item a
// calendar second (SESPACE, sk = unix second, TTL 1 h) holding the
// second's total grant ("used") and, per claimant, what it was granted
// ("g#<class>#<workspace>") and asked ("a#<class>#<workspace>").
type Pace struct{ *dynamo.Table }

// slotTTL keeps a second's ledger a little while for inspection.
const slotTTL = time.Hour

// Attribute name prefixes of a pace ledger's claimants.
const (
	paceGranted = "g#"
	paceAsked   = "a#"
)

func paceKey(second int64) map[string]ddbtypes.AttributeValue {
	return dynamo.Key(dynamo.PacePK, strconv.FormatInt(second, 10))
}

// paceAttr is the attribute of who under prefix.
func paceAttr(prefix string, who capacity.Claimant) string {
	return prefix + strconv.Itoa(int(who.Class)) + "#" + who.Workspace
}

// Ledger reads the second's ledger: one strongly consistent GetItem.
func (p *Pace) Ledger(ctx context.Context, second int64) (capacity.Ledger, error) {
	out, err := p.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &p.Name, Key: paceKey(second), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return capacity.Ledger{}, fmt.Errorf("read send slots: %w", err)
	}
	l := capacity.Ledger{Granted: map[capacity.Claimant]int{}, Asked: map[capacity.Claimant]int{}}
	for name, v := range out.Item {
		into := l.Granted
		rest, ok := strings.CutPrefix(name, paceGranted)
		if !ok {
			into = l.Asked
			if rest, ok = strings.CutPrefix(name, paceAsked); !ok {
				continue
			}
		}
		class, ws, ok := strings.Cut(rest, "#")
		c, err := strconv.Atoi(class)
		if !ok || err != nil {
			continue // not a claimant's
		}
		var n int
		if err := attributevalue.Unmarshal(v, &n); err != nil {
			return capacity.Ledger{}, fmt.Errorf("read send slots: %s: %w", name, err)
		}
		into[capacity.Claimant{Class: capacity.Class(c), Workspace: ws}] = n
	}
	return l, nil
}

// Claim adds want to who's asks and, when n > 0, n to its grant and the
// second's total, under the condition that they stay within limit and
// total: one UpdateItem.
func (p *Pace) Claim(ctx context.Context, second int64, who capacity.Claimant, want, n, limit, total int) (bool, error) {
	update := expression.Add(expression.Name(paceAttr(paceAsked, who)), expression.Value(want)).
		Set(expression.Name(schema.AttrExpiresAt), expression.Value(time.Unix(second, 0).Add(slotTTL).Unix()))
	var cond expression.ConditionBuilder
	if n > 0 {
		granted, used := expression.Name(paceAttr(paceGranted, who)), expression.Name("used")
		update = update.Add(granted, expression.Value(n)).Add(used, expression.Value(n))
		cond = expression.And(
			expression.AttributeNotExists(granted).Or(granted.LessThanEqual(expression.Value(limit-n))),
			expression.AttributeNotExists(used).Or(used.LessThanEqual(expression.Value(total-n))))
	}
	err := p.UpdateItem(ctx, paceKey(second), update, cond, nil)
	var ccf *ddbtypes.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim send slots: %w", err)
	}
	return true, nil
}
