package devstack_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/sesame-mail/sesame/internal/grants/grantstest"
)

// calls records every AWS call a function makes in these tests, through
// the SDK clients of newEnv.
var calls = &grantstest.Log{}

// TestMain runs the package's tests, then checks every call a function
// made against its grants in the permission table (internal/grants, which
// the CDK stack's roles are built from): the emulators have no IAM, so an
// ungranted call would otherwise fail only once deployed. A run of the
// whole package also wants a call from every function that has grants,
// so a function the tests reach without its name in the context is seen.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	closeBrowser() // the one the dashboard tests share
	whole := flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" &&
		os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != ""
	if problems := calls.Problems(whole); len(problems) > 0 {
		fmt.Fprintln(os.Stderr, "--- FAIL: grants: calls the permission table (internal/grants) does not grant:")
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "    "+p)
		}
		code = 1
	}
	os.Exit(code)
}
