// Command automation-runner is the Lambda function consuming the
// automations queue: it executes each woken run's due steps, once each.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/automations/runner"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(runner.AutomationRunner) }
