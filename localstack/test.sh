#!/usr/bin/env bash
# Starts the emulators on the test ports, runs every Go test against them
# with the race detector, and stops them whatever the outcome.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export STATE_DIR=$root/.sesame/test
export DYNAMODB_PORT=${TEST_DYNAMODB_PORT:-18100} SQS_PORT=${TEST_SQS_PORT:-18101} SES_PORT=${TEST_SES_PORT:-18102}
# shellcheck source=localstack/aws-env.sh
. "$here/aws-env.sh"
export SESAME_REQUIRE_EMULATORS=1
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20

trap '"$here/emulators.sh" stop' EXIT
"$here/emulators.sh" start
cd "$root"
# PACKAGES narrows the run (e.g. PACKAGES=./internal/devstack/); every
# package by default.
read -r -a packages <<< "${PACKAGES:-./...}"
go test -race -count=1 -timeout 12m "$@" "${packages[@]}"
# The Go client is a module of its own (clients/go), outside ./...; its
# stack tests and the TypeScript client's run in internal/devstack.
if [ -z "${PACKAGES:-}" ]; then
	(cd clients/go && go test -race -count=1 "$@" ./...)
fi
