// Package storetest gives a service test the repositories over a fresh
// table on DynamoDB Local, shared by the service and the test's own reads.
package storetest

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// New is the repositories over a fresh table.
func New(t *testing.T) repositories.Set {
	t.Helper()
	return repositories.New(&dynamo.Table{DB: dynamotest.Client(t), Name: dynamotest.NewTable(t)})
}

// Workspace creates a workspace named name in store.
func Workspace(t *testing.T, store repositories.Set, name string) workspace.Workspace {
	t.Helper()
	ws, err := store.Workspaces.CreateWorkspace(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
