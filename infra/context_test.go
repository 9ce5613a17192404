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
