package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// clientDB is a DB made of a client's method values. A binary that
// executes templates (html/template calls reflect's MethodByName) keeps
// every exported method of each type that reaches an interface, and of
// the types its fields name: holding the *dynamodb.Client itself would
// link all of DynamoDB's operations, about 2 MB, into the dashboard.
type clientDB struct {
	getItem            func(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	putItem            func(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	updateItem         func(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	deleteItem         func(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	query              func(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	transactWriteItems func(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	batchGetItem       func(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	batchWriteItem     func(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

func newClientDB(c *dynamodb.Client) clientDB {
	return clientDB{
		getItem: c.GetItem, putItem: c.PutItem, updateItem: c.UpdateItem, deleteItem: c.DeleteItem,
		query: c.Query, transactWriteItems: c.TransactWriteItems, batchGetItem: c.BatchGetItem, batchWriteItem: c.BatchWriteItem,
	}
}

func (d clientDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return d.getItem(ctx, in, opts...)
}

func (d clientDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return d.putItem(ctx, in, opts...)
}

func (d clientDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return d.updateItem(ctx, in, opts...)
}

func (d clientDB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return d.deleteItem(ctx, in, opts...)
}

func (d clientDB) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return d.query(ctx, in, opts...)
}

func (d clientDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return d.transactWriteItems(ctx, in, opts...)
}

func (d clientDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return d.batchGetItem(ctx, in, opts...)
}

func (d clientDB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return d.batchWriteItem(ctx, in, opts...)
}
