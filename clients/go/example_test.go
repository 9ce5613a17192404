package sesame_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	sesame "github.com/sesame-mail/sesame/clients/go"
	"github.com/sesame-mail/sesame/clients/go/webhook"
)

// The README's quick start, line for line (TestReadmeQuickStartIsTheExample).
func Example() {
	ctx := context.Background()
	client, err := sesame.New("http://127.0.0.1:8080", os.Getenv("SESAME_KEY")) // import sesame "github.com/sesame-mail/sesame/clients/go"
	if err != nil {
		return
	}
	res, err := client.Send(ctx, sesame.Email{To: "ann@example.org", Subject: "Hi", Html: "<p>Hi</p>"})
	if err != nil {
		return
	}
	for e, err := range client.Emails(ctx, sesame.ListEmailsParams{}) { // every page; client.GetEmail(ctx, res.Id.String()) reads one
		fmt.Println(e.Id, e.Status, err)
	}

	// In a webhook handler:
	var secret string
	var r *http.Request
	body, _ := io.ReadAll(r.Body)
	err = webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), body, 5*time.Minute) // .../clients/go/webhook
	fmt.Println(res.Id, err)
}

func TestReadmeQuickStartIsTheExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "## Clients")
	block, _, _ := strings.Cut(after, "```\n")
	_, block, found := strings.Cut(block, "```go\n")
	if !ok || !found {
		t.Fatal("README.md has no Go block under ## Clients")
	}
	for line := range strings.Lines(block) {
		if !strings.Contains(string(example), "\t"+line) {
			t.Errorf("README line %q is not in Example", strings.TrimSpace(line))
		}
	}
}
