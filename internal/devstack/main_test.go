package devstack_test

import (
	"os"
	"testing"
)

// TestMain closes the browser the dashboard tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	closeBrowser()
	os.Exit(code)
}
