// Package grantstest records the AWS calls each function makes in tests
// (an SDK middleware reading the function from the context,
// routes.WithFunction) and checks them against the permission table
// (grants.Missing): the local emulators have no IAM, so a call the stack
// does not grant would otherwise fail only once deployed.
package grantstest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/grants"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Log is the calls made with a function in the context, each once.
type Log struct {
	mu    sync.Mutex
	calls map[grants.Call]bool
}

// Record adds the recording middleware to an SDK client's stack: append it
// to the client's APIOptions. Calls without a function in the context
// (test setup, the owner's console) are not recorded.
func (l *Log) Record(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("grantstest.Record",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if fn := routes.FunctionOf(ctx); fn != "" {
				l.add(fn, awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx), in.Parameters)
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

func (l *Log) add(function, service, op string, params any) {
	calls := callsOf(service, op, params)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == nil {
		l.calls = map[grants.Call]bool{}
	}
	for _, c := range calls {
		c.Function, c.Operation = function, op
		l.calls[c] = true
	}
}

// Problems lists each call the permission table does not grant, once per
// function, operation and missing grant, with one example; with coverage,
// also each function that grants something and made no call at all (its
// tests bypass routes.WithFunction, or it has none).
func (l *Log) Problems(coverage bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[string]bool{}
	made := map[string]bool{}
	var out []string
	for c := range l.calls {
		made[c.Function] = true
		missing := grants.Missing(c)
		if missing == "" {
			continue
		}
		p := fmt.Sprintf("function %s: %s (%s) is not granted: it needs %s", c.Function, c.Operation, c.Action, missing)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if coverage {
		for _, fn := range routes.FunctionNames() {
			if !made[fn] && grants.ByFunction[fn].GrantsAny() {
				out = append(out, fmt.Sprintf("function %s made no AWS call in these tests: run it with routes.WithFunction (api.Consumers, api.Ticks, the API core do)", fn))
			}
		}
	}
	slices.Sort(out)
	return out
}

// Calls returns the recorded calls of function.
func (l *Log) Calls(function string) []grants.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []grants.Call
	for c := range l.calls {
		if c.Function == function {
			out = append(out, c)
		}
	}
	return out
}

// callsOf is the calls a request is authorized as.
func callsOf(service, op string, params any) []grants.Call {
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		return []grants.Call{item(grants.GetItem, in.Key)}
	case *dynamodb.PutItemInput:
		return []grants.Call{item(grants.PutItem, in.Item)}
	case *dynamodb.UpdateItemInput:
		return []grants.Call{item(grants.UpdateItem, in.Key)}
	case *dynamodb.DeleteItemInput:
		return []grants.Call{item(grants.DeleteItem, in.Key)}
	case *dynamodb.QueryInput:
		return []grants.Call{query(in)}
	case *dynamodb.TransactWriteItemsInput:
		return transactItems(in.TransactItems)
	case *dynamodb.TransactGetItemsInput:
		var out []grants.Call
		for _, it := range in.TransactItems {
			out = append(out, item(grants.GetItem, it.Get.Key))
		}
		return out
	case *dynamodb.BatchGetItemInput:
		var out []grants.Call
		for _, ka := range in.RequestItems {
			for _, k := range ka.Keys {
				out = append(out, item(grants.BatchGetItem, k))
			}
		}
		return out
	case *dynamodb.BatchWriteItemInput:
		var out []grants.Call
		for _, reqs := range in.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					out = append(out, item(grants.BatchWriteItem, r.PutRequest.Item))
				}
				if r.DeleteRequest != nil {
					out = append(out, item(grants.BatchWriteItem, r.DeleteRequest.Key))
				}
			}
		}
		return out
	case *sqs.SendMessageInput:
		return []grants.Call{{Action: grants.SendMessage, Queue: queueName(*in.QueueUrl)}}
	case *sqs.SendMessageBatchInput:
		return []grants.Call{{Action: grants.SendMessage, Queue: queueName(*in.QueueUrl)}}
	case *sqs.ChangeMessageVisibilityInput:
		return []grants.Call{{Action: "sqs:ChangeMessageVisibility", Queue: queueName(*in.QueueUrl)}}
	case *sqs.ChangeMessageVisibilityBatchInput:
		return []grants.Call{{Action: "sqs:ChangeMessageVisibility", Queue: queueName(*in.QueueUrl)}}
	case *sqs.DeleteMessageInput:
		return []grants.Call{{Action: "sqs:DeleteMessage", Queue: queueName(*in.QueueUrl)}}
	case *sqs.DeleteMessageBatchInput:
		return []grants.Call{{Action: "sqs:DeleteMessage", Queue: queueName(*in.QueueUrl)}}
	case *sesv2.SendEmailInput:
		// A v2 SendEmail is authorized by its content's kind.
		action := "ses:SendEmail"
		switch {
		case in.Content != nil && in.Content.Raw != nil:
			action = grants.SendRawEmail
		case in.Content != nil && in.Content.Template != nil:
			action = "ses:SendTemplatedEmail"
		}
		return []grants.Call{{Action: action}}
	}
	// Anything else is authorized as service:Operation, which no profile
	// grants unless the table learns it.
	return []grants.Call{{Action: iamPrefix(service) + ":" + op}}
}

// iamPrefix is the IAM service prefix of an SDK service id.
func iamPrefix(serviceID string) string {
	switch serviceID {
	case "SESv2":
		return "ses"
	}
	return strings.ToLower(serviceID)
}

func transactItems(items []ddbtypes.TransactWriteItem) []grants.Call {
	var out []grants.Call
	for _, it := range items {
		switch {
		case it.Put != nil:
			out = append(out, item(grants.PutItem, it.Put.Item))
		case it.Update != nil:
			out = append(out, item(grants.UpdateItem, it.Update.Key))
		case it.Delete != nil:
			out = append(out, item(grants.DeleteItem, it.Delete.Key))
		case it.ConditionCheck != nil:
			out = append(out, item(grants.ConditionCheckItem, it.ConditionCheck.Key))
		}
	}
	return out
}

func item(action string, key map[string]ddbtypes.AttributeValue) grants.Call {
	return grants.Call{Action: action, LeadingKey: stringAttr(key[schema.Table.PartitionKey])}
}

func stringAttr(v ddbtypes.AttributeValue) string {
	s, _ := v.(*ddbtypes.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

// query is a Query's call: its partition is the value its key condition
// sets the partition key to ("#0 = :0", as the expression builder writes
// it, or the attribute's own name).
func query(in *dynamodb.QueryInput) grants.Call {
	c := grants.Call{Action: grants.Query}
	pk := schema.Table.PartitionKey
	if in.IndexName != nil {
		c.Index = *in.IndexName
		for _, ix := range schema.Table.Indexes {
			if ix.Name == c.Index {
				pk = ix.PartitionKey
			}
		}
	}
	if in.KeyConditionExpression == nil {
		return c
	}
	names := []string{pk}
	for placeholder, name := range in.ExpressionAttributeNames {
		if name == pk {
			names = append(names, placeholder)
		}
	}
	for _, n := range names {
		re := regexp.MustCompile(`(?:^|[\s(])` + regexp.QuoteMeta(n) + `\s*=\s*(:\w+)`)
		if m := re.FindStringSubmatch(*in.KeyConditionExpression); m != nil {
			c.LeadingKey = stringAttr(in.ExpressionAttributeValues[m[1]])
			return c
		}
	}
	return c
}

// queueName is the queue.Def name of a queue URL: its last segment, less
// the prefix a test or a stack gives it.
func queueName(url string) string {
	seg := url[strings.LastIndex(url, "/")+1:]
	for _, d := range queue.All {
		if seg == d.Name || strings.HasSuffix(seg, "-"+d.Name) {
			return d.Name
		}
	}
	return seg
}
