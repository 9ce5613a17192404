#!/usr/bin/env bash
# Checks the stack that deploy-localstack.sh deployed into the LocalStack of
# docker-compose.yml, end to end, over LocalStack's API Gateway URL. Needs
# Docker, so it does not run in `make test`. It uses only what the compose
# path needs anyway: docker (awslocal inside the LocalStack container),
# curl, node (reads JSON) and go (bin/sesame).
#
#   1. finds the REST API id, its stage and the table;
#   2. seeds the demo workspace of `make dev` into the table (sesame dev
#      seed: verified demo.sesame.test, a live and a test key);
#   3. no key: 401; a test-key send: 200 sent; that email read back;
#   4. a live send reaches the ses-v2-local container (its GET /store),
#      through the review function when the layout is new (202 held);
#   5. an SES Delivery event (events/ses/delivery.json) published to the
#      stack's SES events topic, as a configuration set does, reaches the
#      status function through the queue's raw-delivery subscription: the
#      email becomes delivered.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

STACK=${STACK:-Sesame}
LOCALSTACK_URL=${LOCALSTACK_URL:-http://127.0.0.1:4566}
SES_URL=${SES_URL:-http://127.0.0.1:8005}
ENV_FILE=${ENV_FILE:-$root/.sesame/localstack.env}
# Seconds each asynchronous step may take: the first invocation of a
# function pulls its runtime image and starts its container.
TIMEOUT=${TIMEOUT:-180}
RECIPIENT=ann@example.org
export AWS_REGION=${AWS_REGION:-us-east-1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok    $*"; }

# awsl runs the AWS CLI (awslocal) inside the LocalStack container.
awsl() {
  docker compose -f "$here/docker-compose.yml" exec -T localstack \
    awslocal --region "$AWS_REGION" "$@" | tr -d '\r'
}

# json PATH prints the value at PATH (keys joined by dots) of the JSON on
# stdin, objects as JSON, nothing for a missing value.
json() {
  node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      let v = JSON.parse(s);
      for (const k of process.argv[1].split(".")) v = v == null ? undefined : v[k];
      process.stdout.write(v == null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
    });' "$1"
}

# request METHOD PATH KEY [BODY] calls the API; sets code and body.
code=
body=
request() {
  local args=(-s -o "$tmp/body" -w '%{http_code}' -X "$1" "$api$2")
  if [ -n "$3" ]; then args+=(-H "Authorization: Bearer $3"); fi
  if [ $# -ge 4 ]; then args+=(-H 'Content-Type: application/json' --data-binary "$4"); fi
  code=$(curl "${args[@]}")
  body=$(cat "$tmp/body")
}

# wait_for WHAT COMMAND... retries COMMAND every second for TIMEOUT seconds.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 "$TIMEOUT"); do
    if "$@"; then return 0; fi
    sleep 1
  done
  fail "$what: not within ${TIMEOUT}s (last answer: $code $body)"
}

email_status_is() { # ID KEY STATUS
  request GET "/emails/$1" "$2"
  [ "$code" = 200 ] && [ "$(json data.status <<<"$body")" = "$3" ]
}

in_ses_store() { # TEXT
  curl -sf "$SES_URL/store" | grep -qF "$1"
}

# 1. The deployed stack.
api_id=$(awsl apigateway get-rest-apis --query "items[?name=='$STACK-api'].id | [0]" --output text)
if [ -z "$api_id" ] || [ "$api_id" = None ]; then
  fail "no REST API $STACK-api in LocalStack: run localstack/deploy-localstack.sh first"
fi
stage=$(awsl apigateway get-stages --rest-api-id "$api_id" --query 'item[0].stageName' --output text)
table=$(awsl cloudformation describe-stacks --stack-name "$STACK" \
  --query "Stacks[0].Outputs[?OutputKey=='TableName'].OutputValue | [0]" --output text)
topic=$(awsl cloudformation describe-stacks --stack-name "$STACK" \
  --query "Stacks[0].Outputs[?OutputKey=='SesEventsTopicArn'].OutputValue | [0]" --output text)
api="$LOCALSTACK_URL/restapis/$api_id/$stage/_user_request_/api/v1"
pass "stack $STACK: REST API $api_id, stage $stage, table $table"

# 2. The demo workspace, in the stack's table (LocalStack's DynamoDB).
make -s bin/sesame
AWS_ENDPOINT_URL_DYNAMODB=$LOCALSTACK_URL AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test \
  bin/sesame --table "$table" dev seed --env-file "$ENV_FILE" >/dev/null
set -a
# shellcheck source=/dev/null
. "$ENV_FILE"
set +a
pass "demo workspace $SESAME_WORKSPACE_ID seeded (keys in $ENV_FILE)"

# 3. Keys, a test send, reading it back.
request GET /emails ""
[ "$code" = 401 ] || fail "GET /emails without a key answered $code, want 401: $body"
pass "no key: 401"

run=$(date +%s)-$$
request POST /send "$SESAME_TEST_KEY" \
  "{\"to\":\"$RECIPIENT\",\"subject\":\"Smoke test $run\",\"html\":\"<p>Hi Ann</p>\"}"
if [ "$code" != 200 ] || [ "$(json status <<<"$body")" != sent ]; then
  fail "test-key send answered $code, want 200 sent: $body"
fi
test_id=$(json id <<<"$body")
pass "test-key send: 200 sent ($test_id)"

request GET "/emails/$test_id" "$SESAME_TEST_KEY"
if [ "$code" != 200 ] || [ "$(json data.id <<<"$body")" != "$test_id" ]; then
  fail "GET /emails/$test_id answered $code: $body"
fi
pass "test email read back"

# 4. A live send, out through the SES container.
subject="Smoke live $run"
request POST /send "$SESAME_LIVE_KEY" \
  "{\"to\":\"$RECIPIENT\",\"subject\":\"$subject\",\"html\":\"<p>Hi Ann, <b>live</b></p>\"}"
case "$code $(json status <<<"$body")" in
  "200 sent" | "202 held") ;;
  *) fail "live send answered $code, want 200 sent or 202 held: $body" ;;
esac
live_id=$(json id <<<"$body")
pass "live send: $code $(json status <<<"$body") ($live_id)"
wait_for "the live email in $SES_URL/store" in_ses_store "$subject"
pass "live email captured by ses-v2-local"
wait_for "the live email sent" email_status_is "$live_id" "$SESAME_LIVE_KEY" sent
pass "live email status: sent"

# 5. SES's Delivery event, as a configuration set publishes it to the topic.
message=$(EMAIL_ID=$live_id WORKSPACE_ID=$SESAME_WORKSPACE_ID RECIPIENT=$RECIPIENT SET="$STACK-full" node -e '
  const fs = require("fs");
  const raw = fs.readFileSync(process.argv[1], "utf8").replace(/\$\{(\w+)\}/g, (_, k) => process.env[k] ?? "");
  const ev = JSON.parse(raw);
  const now = new Date().toISOString();
  ev.mail.timestamp = now;
  ev.delivery.timestamp = now;
  ev.mail.tags["ses:configuration-set"] = [process.env.SET];
  process.stdout.write(JSON.stringify(ev));
' events/ses/delivery.json)
out=$(awsl sns publish --topic-arn "$topic" --message "$message" --output json)
[ -n "$(json MessageId <<<"$out")" ] || fail "sns publish: $out"
pass "SES Delivery event published to $topic"
wait_for "the live email delivered" email_status_is "$live_id" "$SESAME_LIVE_KEY" delivered
pass "status function applied it: delivered"

echo "smoke test passed"
