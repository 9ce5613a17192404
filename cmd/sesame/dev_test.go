package main

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The console skips DynamoDB Local's unreliable checksums wherever the SDK
// reaches DynamoDB on this machine: through DynamoDB's own variable or the
// global one.
func TestDisableChecksumIfLocal(t *testing.T) {
	cases := map[string]struct {
		service, global string
		want            bool
	}{
		"DynamoDB's variable local":        {service: "http://127.0.0.1:8000", want: true},
		"only the global variable local":   {global: "http://localhost:4566", want: true},
		"DynamoDB's variable wins":         {service: "https://dynamodb.example", global: "http://127.0.0.1:4566"},
		"no endpoint: AWS itself":          {},
		"the global variable not loopback": {global: "https://aws.example"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", tc.service)
			t.Setenv("AWS_ENDPOINT_URL", tc.global)
			var o dynamodb.Options
			disableChecksumIfLocal()(&o)
			if o.DisableValidateResponseChecksum != tc.want {
				t.Errorf("checksum validation disabled: %v, want %v", o.DisableValidateResponseChecksum, tc.want)
			}
		})
	}
}
