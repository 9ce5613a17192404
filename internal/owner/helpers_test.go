package owner_test

import (
	"errors"
	"testing"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// newStore is a store over a fresh table on DynamoDB Local; the owner
// services under test and the test's own reads share it.
func newStore(t *testing.T) dynamo.Repositories {
	t.Helper()
	return dynamo.NewRepositories(&dynamo.Table{DB: dynamotest.Client(t), Name: dynamotest.NewTable(t)})
}

// wantInput fails t unless err refuses the input field.
func wantInput(t *testing.T, err error, field string) {
	t.Helper()
	if k := fail.KindOf(err); (k != fail.KindInvalid && k != fail.KindMissing && k != fail.KindNotFound) || fail.ParamOf(err) != field {
		t.Errorf("err = %v, want an input error about %q", err, field)
	}
}

// wantErr fails t unless err is target.
func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("err = %v, want %v", err, target)
	}
}

// newWorkspace creates a workspace named name in store.
func newWorkspace(t *testing.T, store dynamo.Repositories, name string) workspace.Workspace {
	t.Helper()
	ws, err := store.Workspaces.CreateWorkspace(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
