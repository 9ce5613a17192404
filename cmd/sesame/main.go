// Command sesame is the operator console: the workspace owner's tool for
// what is never an API-key action (workspaces, keys, domains, senders,
// held email, webhooks). It talks to DynamoDB, SES and SQS directly
// with the operator's AWS credentials, so the same commands manage a
// deployed stack and the local one; `sesame dev` runs the local stack.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := execute(ctx, newRootCommand()); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(exitCode(err)) // 2 for a command line it cannot run
	}
}
