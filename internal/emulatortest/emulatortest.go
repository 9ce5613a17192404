// Package emulatortest decides whether a test that needs a local AWS
// emulator (started by `make test`) runs, skips or fails. It is a leaf, so
// every package's test helpers (dynamotest, queuetest, the SES tests) share
// it without importing each other.
package emulatortest

import (
	"os"
	"testing"
)

// Require returns the endpoint in envVar. Without one it skips t, or fails
// it when SESAME_REQUIRE_EMULATORS is set (as `make test` does), so CI can
// never pass by skipping.
func Require(t testing.TB, envVar string) string {
	t.Helper()
	endpoint := os.Getenv(envVar)
	if endpoint == "" {
		if os.Getenv("SESAME_REQUIRE_EMULATORS") != "" {
			t.Fatalf("%s is not set; run the tests with `make test`", envVar)
		}
		t.Skipf("%s is not set; run `make test` to start the emulators", envVar)
	}
	return endpoint
}
