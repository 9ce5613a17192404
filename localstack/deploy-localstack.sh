#!/usr/bin/env bash
# Deploys the CDK app into the LocalStack of docker-compose.yml with
# cdklocal, in LocalStack mode (-c localstack=true: no SES configuration
# sets, SES v2 calls to the ses-v2-local container; infra/localstack.go).
# Needs Docker; not used by `make dev` or `make test`. From the repository
# root:
#   docker compose -f localstack/docker-compose.yml up -d
#   localstack/deploy-localstack.sh
#   localstack/smoke.sh
# ARCH (amd64 or arm64) is the functions' architecture. LocalStack runs
# each function in a container of that architecture, so the default is
# the host's: arm64 functions on an x86 host would need qemu.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
LOCALSTACK_URL=${LOCALSTACK_URL:-http://127.0.0.1:4566}
READY_TIMEOUT=${READY_TIMEOUT:-180}

arch=${ARCH:-$(uname -m)}
case "$arch" in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "unknown architecture $arch: set ARCH=amd64 or ARCH=arm64" >&2; exit 2 ;;
esac

# LocalStack answers on 4566 before its services and init stages are up;
# /_localstack/init/ready reports "completed": true once it is ready.
echo "waiting for LocalStack at $LOCALSTACK_URL (docker compose -f localstack/docker-compose.yml up -d)"
ready=
for _ in $(seq 1 "$READY_TIMEOUT"); do
  if curl -sf "$LOCALSTACK_URL/_localstack/init/ready" | grep -Eq '"completed": *true'; then
    ready=1
    break
  fi
  sleep 1
done
if [ -z "$ready" ]; then
  echo "LocalStack at $LOCALSTACK_URL was not ready within ${READY_TIMEOUT}s" >&2
  exit 1
fi

[ -d localstack/node_modules ] || (cd localstack && npm ci --no-audit --no-fund)
make build ARCH="$arch"

export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20
export AWS_REGION=${AWS_REGION:-us-east-1}
export AWS_DEFAULT_REGION=$AWS_REGION
# cdklocal drops every AWS_* variable not on this list, then defaults the
# region to us-east-1: keep the one chosen here.
export AWS_ENVAR_ALLOWLIST=AWS_REGION,AWS_DEFAULT_REGION

cdklocal=localstack/node_modules/.bin/cdklocal
context=(-c localstack=true -c "arch=$arch")
"$cdklocal" bootstrap "${context[@]}"
"$cdklocal" deploy --require-approval never "${context[@]}"
echo "deployed; check it end to end with localstack/smoke.sh"
