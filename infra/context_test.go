package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

func TestDeployOptions(t *testing.T) {
	cases := map[string]struct {
		context map[string]any
		want    deployOptions
		wantErr string
	}{
		"none":                             {want: deployOptions{arch: archARM64}},
		"amd64":                            {context: map[string]any{contextArch: "amd64"}, want: deployOptions{arch: archAMD64}},
		"x86_64 is not a GOARCH":           {context: map[string]any{contextArch: "x86_64"}, wantErr: "want arm64 or amd64"},
		"arch from cdk.json, not a string": {context: map[string]any{contextArch: true}, wantErr: "want arm64 or amd64"},
		"arch a number":                    {context: map[string]any{contextArch: 64}, wantErr: "is not a string"},
		"localstack from the CLI":          {context: map[string]any{contextLocalStack: "true"}, want: deployOptions{arch: archARM64, localStack: true, sesv2Endpoint: defaultSESv2Endpoint}},
		"localstack from cdk.json":         {context: map[string]any{contextLocalStack: true}, want: deployOptions{arch: archARM64, localStack: true, sesv2Endpoint: defaultSESv2Endpoint}},
		"localstack=false":                 {context: map[string]any{contextLocalStack: "false"}, want: deployOptions{arch: archARM64}},
		"localstack=yes":                   {context: map[string]any{contextLocalStack: "yes"}, wantErr: "want true or false"},
		"own SES endpoint": {
			context: map[string]any{contextLocalStack: "true", contextSESv2Endpoint: "http://10.0.0.5:8005"},
			want:    deployOptions{arch: archARM64, localStack: true, sesv2Endpoint: "http://10.0.0.5:8005"},
		},
		"SES endpoint without localstack": {context: map[string]any{contextSESv2Endpoint: "http://10.0.0.5:8005"}, wantErr: "applies only with -c localstack=true"},
		"SES endpoint not a URL":          {context: map[string]any{contextLocalStack: "true", contextSESv2Endpoint: "ses-v2-local"}, wantErr: "want an http(s) URL"},
		"public URL of a custom domain":   {context: map[string]any{contextPublicURL: "https://mail.example.com/"}, want: deployOptions{arch: archARM64, publicURL: "https://mail.example.com"}},
		"public URL over http":            {context: map[string]any{contextPublicURL: "http://mail.example.com"}, wantErr: "must be https"},
		"public URL with a query":         {context: map[string]any{contextPublicURL: "https://mail.example.com/?a=b"}, wantErr: "without query"},
		"alert email":                     {context: map[string]any{contextAlertEmail: "ops@example.com"}, want: deployOptions{arch: archARM64, alertEmail: "ops@example.com"}},
		"alert email with a name":         {context: map[string]any{contextAlertEmail: "Ops <ops@example.com>"}, wantErr: "want an email address"},
		"alert email not an address":      {context: map[string]any{contextAlertEmail: "ops"}, wantErr: "want an email address"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			props := &awscdk.AppProps{Outdir: jsii.String(filepath.Join(testDir, "cdk.out-options"))}
			if tc.context != nil {
				props.Context = &tc.context
			}
			got, err := deployOptionsOf(awscdk.NewApp(props))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to say %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("options = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
