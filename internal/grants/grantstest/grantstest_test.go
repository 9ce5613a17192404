package grantstest

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	sestypes "github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/grants"
)

func TestCallsOf(t *testing.T) {
	key := func(pk string) map[string]ddbtypes.AttributeValue {
		return map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: pk}, "sk": &ddbtypes.AttributeValueMemberS{Value: "s"}}
	}
	cases := map[string]struct {
		op     string
		params any
		want   []grants.Call
	}{
		"query, builder's placeholders": {"Query", &dynamodb.QueryInput{
			KeyConditionExpression:    aws.String("(#0 = :0) AND (begins_with (#1, :1))"),
			ExpressionAttributeNames:  map[string]string{"#0": "pk", "#1": "sk"},
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":0": &ddbtypes.AttributeValueMemberS{Value: "WS#w#WHATTEMPT#e"}, ":1": &ddbtypes.AttributeValueMemberS{Value: "x"}},
		}, []grants.Call{{Action: grants.Query, LeadingKey: "WS#w#WHATTEMPT#e"}}},
		"query of the index": {"Query", &dynamodb.QueryInput{
			IndexName:                 aws.String("gsi1"),
			KeyConditionExpression:    aws.String("#0 = :0"),
			ExpressionAttributeNames:  map[string]string{"#0": "gsi1pk"},
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":0": &ddbtypes.AttributeValueMemberS{Value: "WS#w#DOMAINS"}},
		}, []grants.Call{{Action: grants.Query, Index: "gsi1", LeadingKey: "WS#w#DOMAINS"}}},
		"transaction, per item": {"TransactWriteItems", &dynamodb.TransactWriteItemsInput{TransactItems: []ddbtypes.TransactWriteItem{
			{Put: &ddbtypes.Put{Item: key("A")}}, {Update: &ddbtypes.Update{Key: key("B")}},
			{Delete: &ddbtypes.Delete{Key: key("C")}}, {ConditionCheck: &ddbtypes.ConditionCheck{Key: key("D")}},
		}}, []grants.Call{{Action: grants.PutItem, LeadingKey: "A"}, {Action: grants.UpdateItem, LeadingKey: "B"},
			{Action: grants.DeleteItem, LeadingKey: "C"}, {Action: grants.ConditionCheckItem, LeadingKey: "D"}}},
		"batch write as itself": {"BatchWriteItem", &dynamodb.BatchWriteItemInput{RequestItems: map[string][]ddbtypes.WriteRequest{
			"t": {{PutRequest: &ddbtypes.PutRequest{Item: key("A")}}, {DeleteRequest: &ddbtypes.DeleteRequest{Key: key("B")}}},
		}}, []grants.Call{{Action: grants.BatchWriteItem, LeadingKey: "A"}, {Action: grants.BatchWriteItem, LeadingKey: "B"}}},
		"batch send as SendMessage, queue less its prefix": {"SendMessageBatch",
			&sqs.SendMessageBatchInput{QueueUrl: aws.String("http://127.0.0.1:1/000000000000/t0123456789ab-webhooks")},
			[]grants.Call{{Action: grants.SendMessage, Queue: "webhooks"}}},
		"raw send email": {"SendEmail", &sesv2.SendEmailInput{Content: &sestypes.EmailContent{Raw: &sestypes.RawMessage{}}},
			[]grants.Call{{Action: grants.SendRawEmail}}},
		"other operation": {"CreateEmailIdentity", &sesv2.CreateEmailIdentityInput{},
			[]grants.Call{{Action: "ses:CreateEmailIdentity"}}},
	}
	for name, c := range cases {
		service := "DynamoDB"
		switch c.params.(type) {
		case *sqs.SendMessageBatchInput:
			service = "SQS"
		case *sesv2.SendEmailInput, *sesv2.CreateEmailIdentityInput:
			service = "SESv2"
		}
		if got := callsOf(service, c.op, c.params); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: calls %+v, want %+v", name, got, c.want)
		}
	}
}
