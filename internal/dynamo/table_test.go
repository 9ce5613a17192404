package dynamo_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"

	"github.com/sesame-mail/sesame/internal/dynamo"
)

// A response whose CRC32 does not match makes a DynamoDB client warn (in
// the log of whatever runs it), unless its config has
// WithoutResponseChecksums.
func TestWithoutResponseChecksums(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Amz-Crc32", "1") // the CRC32 of "{}" is not 1
		w.Write([]byte("{}"))
	}))
	t.Cleanup(srv.Close)
	get := func(opts ...func(*middleware.Stack) error) string {
		var log strings.Builder
		cfg := aws.Config{
			Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), APIOptions: opts,
			Credentials: credentials.NewStaticCredentialsProvider("id", "secret", ""),
			Logger: logging.LoggerFunc(func(_ logging.Classification, format string, v ...any) {
				fmt.Fprintf(&log, format+"\n", v...)
			}),
		}
		if _, err := dynamodb.NewFromConfig(cfg).ListTables(t.Context(), &dynamodb.ListTablesInput{}); err != nil {
			t.Fatal(err)
		}
		return log.String()
	}
	if log := get(); !strings.Contains(log, "checksum") {
		t.Fatalf("with checksums: logged %q, want a checksum mismatch", log)
	}
	if log := get(dynamo.WithoutResponseChecksums); log != "" {
		t.Errorf("without checksums: logged %q", log)
	}
}
