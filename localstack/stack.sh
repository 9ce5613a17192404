#!/usr/bin/env bash
# Runs the whole local stack: emulators plus `sesame dev` (API and pollers).
#   stack.sh run    foreground; Ctrl-C stops everything it started
#   stack.sh up     detached; PIDs recorded under .sesame/dev
#   stack.sh down   stops what `up` started, by PID
#   stack.sh reset  stops it and deletes the local data and demo keys
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export STATE_DIR=${STATE_DIR:-$root/.sesame/dev}
export DYNAMODB_PORT=${DYNAMODB_PORT:-18000} SQS_PORT=${SQS_PORT:-18001} SES_PORT=${SES_PORT:-18002}
# The local table survives restarts (the demo workspace and its keys are
# reused), and so does what the emulators do not keep, which `sesame dev`
# writes beside it (SES identities, raw MIME); `make dev-reset` deletes
# them. Queues start empty each time.
export DYNAMODB_DATA=${DYNAMODB_DATA:-$root/.sesame/data}
API_ADDR=${API_ADDR:-127.0.0.1:8080}
ENV_FILE=${ENV_FILE:-$root/.sesame/dev.env}
SESAME_BIN=${SESAME_BIN:-$root/bin/sesame}

# shellcheck source=localstack/aws-env.sh
. "$here/aws-env.sh"
# shellcheck source=localstack/proc.sh
. "$here/proc.sh"
API_MARKER="sesame dev --addr"

wait_api() {
  for _ in $(seq 1 300); do
    # kill -0, not alive: just after the fork the command line is still
    # this script's.
    if ! kill -0 "$(cat "$STATE_DIR/api.pid")" 2>/dev/null; then
      tail -20 "$STATE_DIR/api.log" >&2; return 1
    fi
    if port_open "${API_ADDR##*:}" "${API_ADDR%:*}"; then return 0; fi
    sleep 0.1
  done
  echo "sesame dev did not listen on $API_ADDR within 30s" >&2; return 1
}

api_port_free() {
  if port_open "${API_ADDR##*:}" "${API_ADDR%:*}"; then
    echo "$API_ADDR is taken by another process; set API_ADDR" >&2
    return 1
  fi
}

case "${1:-}" in
  run)
    api_port_free
    trap '"$here/emulators.sh" stop' EXIT
    "$here/emulators.sh" start
    # Not exec: the trap must run after the server stops.
    "$SESAME_BIN" dev --addr "$API_ADDR" --env-file "$ENV_FILE" --data-dir "$DYNAMODB_DATA" || true
    ;;
  up)
    if alive "$STATE_DIR/api.pid" "$API_MARKER"; then
      "$here/emulators.sh" start
      echo "sesame dev already running (pid $(cat "$STATE_DIR/api.pid"))"; exit 0
    fi
    api_port_free
    trap 'stop_pidfile "sesame dev" "$STATE_DIR/api.pid" "$API_MARKER"; "$here/emulators.sh" stop' ERR
    "$here/emulators.sh" start
    # The banner (with the demo keys) goes to a private file, never into
    # the log; both are under the git-ignored .sesame/.
    (umask 077; : >"$STATE_DIR/banner.txt")
    "$SESAME_BIN" dev --addr "$API_ADDR" --env-file "$ENV_FILE" --data-dir "$DYNAMODB_DATA" >"$STATE_DIR/banner.txt" 2>"$STATE_DIR/api.log" &
    echo $! >"$STATE_DIR/api.pid"
    wait_api
    trap - ERR
    for _ in $(seq 1 50); do [ -s "$STATE_DIR/banner.txt" ] && break; sleep 0.1; done
    cat "$STATE_DIR/banner.txt"
    ;;
  down)
    stop_pidfile "sesame dev" "$STATE_DIR/api.pid" "$API_MARKER"
    "$here/emulators.sh" stop
    ;;
  reset)
    stop_pidfile "sesame dev" "$STATE_DIR/api.pid" "$API_MARKER"
    "$here/emulators.sh" stop
    rm -rf "$DYNAMODB_DATA" "$ENV_FILE"
    echo "local data and demo keys deleted; make dev starts afresh"
    ;;
  *) echo "usage: $0 run|up|down|reset" >&2; exit 2 ;;
esac
