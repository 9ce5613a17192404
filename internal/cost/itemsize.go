package cost

import (
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// ItemSize is the size DynamoDB bills an item at (schema.ItemSize, which
// the status pipeline also sizes the email item by).
func ItemSize(item map[string]ddbtypes.AttributeValue) int { return schema.ItemSize(item) }
