#!/usr/bin/env bash
# Deploys the CDK app into a running LocalStack (docker compose up -d) with
# cdklocal. Needs Docker; not used by `make dev` or `make test`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
[ -d localstack/node_modules ] || (cd localstack && npm ci --no-audit --no-fund)
make build
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20 AWS_REGION=${AWS_REGION:-us-east-1}
localstack/node_modules/.bin/cdklocal bootstrap
localstack/node_modules/.bin/cdklocal deploy --require-approval never
