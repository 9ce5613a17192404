import { test } from "node:test";
import assert from "node:assert/strict";
import { verify, parse, WebhookVerificationError } from "../src/webhook.js";

// Computed by OpenSSL, not by this package:
// printf '%s' '1700000000.<body>' | openssl dgst -sha256 -hmac '<secret>' -hex
// (the same vectors as the Go client's tests).
const body = `{"id":"evt_1","type":"email.delivered"}`;
const oldSec = "whsec_test_secret_one";
const newSec = "whsec_test_secret_two";
const sigOld = "72444948b5080ff505528889c6d674d4a6986a7acc1d6e90d0c721598f59810d";
const sigNew = "808cc80d730b1d5a2026e53e9dd1d36e7da826c8c5e947a6ee6a5f6bff5c2663";
const signedAt = new Date(1700000000 * 1000);
const at = (s: number) => new Date(signedAt.getTime() + s * 1000);
const rotation = `t=1700000000,v1=${sigNew},v1=${sigOld}`;

const cases: [string, string, string, string | Uint8Array, Date, WebhookVerificationError["reason"] | null][] = [
  ["one signature", oldSec, `t=1700000000,v1=${sigOld}`, body, signedAt, null],
  ["rotation, new secret", newSec, rotation, body, signedAt, null],
  ["rotation, old secret", oldSec, rotation, body, signedAt, null],
  ["raw bytes", oldSec, rotation, new TextEncoder().encode(body), signedAt, null],
  ["within the tolerance", oldSec, rotation, body, at(299), null],
  ["another secret", "whsec_other", rotation, body, signedAt, "mismatch"],
  ["body changed", oldSec, rotation, body + " ", signedAt, "mismatch"],
  ["timestamp changed", oldSec, `t=1700000001,v1=${sigOld}`, body, signedAt, "mismatch"],
  ["too old", oldSec, rotation, body, at(301), "expired"],
  ["too far ahead", oldSec, rotation, body, at(-301), "expired"],
  ["empty header", oldSec, "", body, signedAt, "header"],
  ["no v1", oldSec, "t=1700000000", body, signedAt, "header"],
  ["no t", oldSec, `v1=${sigOld}`, body, signedAt, "header"],
  ["two t", oldSec, `t=1700000000,t=1700000000,v1=${sigOld}`, body, signedAt, "header"],
  ["not hex", oldSec, "t=1700000000,v1=zz", body, signedAt, "header"],
];

for (const [name, secret, header, b, now, want] of cases) {
  test(`verify: ${name}`, async () => {
    const run = verify(secret, header, b, 300, now);
    if (want === null) {
      await run;
      return;
    }
    await assert.rejects(run, (err: unknown) => err instanceof WebhookVerificationError && err.reason === want);
  });
}

test("parse refuses a stale delivery before reading it", async () => {
  await assert.rejects(parse(oldSec, rotation, body, 60), (err: unknown) => err instanceof WebhookVerificationError && err.reason === "expired");
});
