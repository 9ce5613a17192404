// Command infra is Sesame's CDK app: one stack holding the table, the queues,
// one Lambda function per API route and the REST API in front of them.
//
// cdk runs it from the repository root (cdk.json: "go run ./infra"), so the
// function binaries are read from bin/<function>/bootstrap there.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/routes"
)

// DefaultBinDir is where `make build` puts bin/<function>/bootstrap, relative
// to the repository root.
const DefaultBinDir = "bin"

// SesameStackProps configures NewSesameStack.
type SesameStackProps struct {
	awscdk.StackProps
	// BinDir holds one <function>/bootstrap per route; DefaultBinDir if empty.
	BinDir string
}

// NewSesameStack defines every resource of one Sesame deployment.
func NewSesameStack(scope constructs.Construct, id string, props *SesameStackProps) awscdk.Stack {
	var p SesameStackProps
	if props != nil {
		p = *props
	}
	if p.BinDir == "" {
		p.BinDir = DefaultBinDir
	}
	stack := awscdk.NewStack(scope, &id, &p.StackProps)

	table := newTable(stack)
	newQueues(stack)
	cursorSecret := newCursorSecret(stack)

	api := newRestAPI(stack)
	env := map[string]*string{
		"SESAME_TABLE": table.TableName(),
		// Resolved by CloudFormation at deploy time (see newCursorSecret), so
		// the template holds a {{resolve:secretsmanager:…}} reference only.
		"SESAME_CURSOR_SECRET": cursorSecret.SecretValue().UnsafeUnwrap(),
		"LOG_LEVEL":            jsii.String("info"),
	}
	for _, r := range routes.API {
		fn := newRouteFunction(stack, r, p.BinDir, env)
		grantTable(fn, table, r.Method)
		addRoute(api, r, fn)
	}

	awscdk.NewCfnOutput(stack, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{
		Value:       api.Url(),
		Description: jsii.String("Base URL of the REST API stage; routes live under /api/v1"),
	})
	awscdk.NewCfnOutput(stack, jsii.String("TableName"), &awscdk.CfnOutputProps{
		Value: table.TableName(),
	})
	return stack
}

// missingBinaries lists the bootstrap files of routes.API absent from binDir.
// Checked before synth because CDK's own error names only the directory.
func missingBinaries(binDir string) []string {
	var missing []string
	for _, r := range routes.API {
		p := filepath.Join(binDir, r.Function, "bootstrap")
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	return missing
}

func main() {
	err := run()
	// Close also removes the runtime jsii unpacked into TMPDIR at start-up.
	jsii.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "infra:", err)
		os.Exit(1)
	}
}

func run() error {
	if missing := missingBinaries(DefaultBinDir); len(missing) > 0 {
		return fmt.Errorf("function binaries missing, build them first (make build): %v", missing)
	}
	app := awscdk.NewApp(nil)
	NewSesameStack(app, "Sesame", &SesameStackProps{})
	app.Synth(nil)
	return nil
}
