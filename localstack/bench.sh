#!/usr/bin/env bash
# Starts the emulators on the bench ports, runs the benchmarks (speed,
# DynamoDB calls and capacity per request, cost per 1,000 emails) and stops
# them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export STATE_DIR=$root/.sesame/bench
export DYNAMODB_PORT=${BENCH_DYNAMODB_PORT:-18110} SQS_PORT=${BENCH_SQS_PORT:-18111} SES_PORT=${BENCH_SES_PORT:-18112}
# shellcheck source=localstack/aws-env.sh
. "$here/aws-env.sh"
export SESAME_REQUIRE_EMULATORS=1
trap '"$here/emulators.sh" stop' EXIT
"$here/emulators.sh" start
cd "$root"
# BENCH picks benchmarks (a regexp), BENCHTIME sizes them, BENCHFLAGS adds
# go test flags (e.g. -cpuprofile /tmp/cpu.prof). BENCH_AUTOMATION_RUNS sizes
# BenchmarkAutomation (2,000 runs by default; the issue's 10,000 take about
# 10 minutes here).
read -r -a flags <<< "${BENCHFLAGS:-}"
go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-300x}" -timeout 30m "${flags[@]}" ./internal/bench/
