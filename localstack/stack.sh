#!/usr/bin/env bash
# Runs the whole local stack: emulators plus `sesame dev` (API and pollers).
#   stack.sh run    foreground; Ctrl-C stops everything it started
#   stack.sh up     detached; PIDs recorded under .sesame/dev
#   stack.sh down   stops what `up` started, by PID
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export STATE_DIR=${STATE_DIR:-$root/.sesame/dev}
export DYNAMODB_PORT=${DYNAMODB_PORT:-18000} SQS_PORT=${SQS_PORT:-18001} SES_PORT=${SES_PORT:-18002}
API_ADDR=${API_ADDR:-127.0.0.1:8080}
ENV_FILE=${ENV_FILE:-$root/.sesame/dev.env}
SESAME_BIN=${SESAME_BIN:-$root/bin/sesame}

# shellcheck source=localstack/aws-env.sh
. "$here/aws-env.sh"

wait_api() {
  for _ in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/${API_ADDR%:*}/${API_ADDR##*:}") 2>/dev/null; then return 0; fi
    if ! kill -0 "$(cat "$STATE_DIR/api.pid")" 2>/dev/null; then
      tail -20 "$STATE_DIR/api.log" >&2; return 1
    fi
    sleep 0.1
  done
  echo "sesame dev did not listen on $API_ADDR within 30s" >&2; return 1
}

case "${1:-}" in
  run)
    "$here/emulators.sh" start
    trap '"$here/emulators.sh" stop' EXIT
    # Not exec: the trap must run after the server stops.
    "$SESAME_BIN" dev --addr "$API_ADDR" --env-file "$ENV_FILE" || true
    ;;
  up)
    "$here/emulators.sh" start
    if [ -f "$STATE_DIR/api.pid" ] && kill -0 "$(cat "$STATE_DIR/api.pid")" 2>/dev/null; then
      echo "sesame dev already running (pid $(cat "$STATE_DIR/api.pid"))"; exit 0
    fi
    # The banner (with the demo keys) goes to a private file, never into
    # the log; both are under the git-ignored .sesame/.
    (umask 077; : >"$STATE_DIR/banner.txt")
    "$SESAME_BIN" dev --addr "$API_ADDR" --env-file "$ENV_FILE" >"$STATE_DIR/banner.txt" 2>"$STATE_DIR/api.log" &
    echo $! >"$STATE_DIR/api.pid"
    wait_api
    for _ in $(seq 1 50); do [ -s "$STATE_DIR/banner.txt" ] && break; sleep 0.1; done
    cat "$STATE_DIR/banner.txt"
    ;;
  down)
    if [ -f "$STATE_DIR/api.pid" ]; then
      pid=$(cat "$STATE_DIR/api.pid")
      if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        echo "sesame dev stopped (pid $pid)"
      fi
      rm -f "$STATE_DIR/api.pid"
    fi
    "$here/emulators.sh" stop
    ;;
  *) echo "usage: $0 run|up|down" >&2; exit 2 ;;
esac
