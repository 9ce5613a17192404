// Package failtest holds the checks a test makes of a fail.Error.
package failtest

import (
	"errors"
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
)

// WantInput fails t unless err refuses the input field (invalid, missing
// or naming a record the workspace has not).
func WantInput(t testing.TB, err error, field string) {
	t.Helper()
	if k := fail.KindOf(err); (k != fail.KindInvalid && k != fail.KindMissing && k != fail.KindNotFound) || fail.ParamOf(err) != field {
		t.Errorf("err = %v, want an input error about %q", err, field)
	}
}

// WantIs fails t unless err is target.
func WantIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("err = %v, want %v", err, target)
	}
}
