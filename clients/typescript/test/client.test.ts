import { test } from "node:test";
import assert from "node:assert/strict";
import { Sesame, SesameError, retryAfterMs, type Email } from "../src/index.js";

interface Seen {
  url: URL;
  method: string;
  headers: Headers;
  body: string | undefined;
}

/** A fetch that answers request n (from 1) with answer(n) and records what it got. */
function fakeFetch(answer: (n: number, url: URL) => Response): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const f = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    seen.push({ url, method: init?.method ?? "GET", headers: new Headers(init?.headers), body: init?.body as string | undefined });
    return answer(seen.length, url);
  };
  return { fetch: f as typeof fetch, seen };
}

function errorAnswer(status: number, code: string, param: string | null, retryAfter?: string): Response {
  const headers: Record<string, string> = { "Content-Type": "application/json", "X-Request-Id": "req-1" };
  if (retryAfter !== undefined) headers["Retry-After"] = retryAfter;
  return new Response(JSON.stringify({ error: { code, message: "m", param, request_id: "req-1" } }), { status, headers });
}

const sent = () => Response.json({ id: "0195a3c2-7c2e-7000-8000-000000000001", status: "sent", success: true, message: "Email sent" });
const email: Email = { to: "ann@example.org", subject: "Hi", html: "<p>Hi</p>" };

for (const status of [429, 503]) {
  test(`send retries a ${status} after its Retry-After with the same Idempotency-Key`, async () => {
    const { fetch, seen } = fakeFetch((n) => (n === 1 ? errorAnswer(status, "rate_limited", null, "7") : sent()));
    const waits: number[] = [];
    const client = new Sesame("http://api.test/prod/", "ps_test_key", { fetch, sleep: async (ms) => void waits.push(ms) });
    const res = await client.send(email);
    assert.equal(res.status, "sent");
    assert.deepEqual(waits, [7000]);
    assert.equal(seen.length, 2);
    assert.equal(seen[0]!.url.href, "http://api.test/prod/api/v1/send");
    const key = seen[0]!.headers.get("Idempotency-Key");
    assert.ok(key);
    assert.equal(seen[1]!.headers.get("Idempotency-Key"), key);
    assert.equal(seen[1]!.body, seen[0]!.body);
    assert.equal(seen[1]!.headers.get("Authorization"), "Bearer ps_test_key");
  });
}

test("send keeps the caller's Idempotency-Key", async () => {
  const { fetch, seen } = fakeFetch(sent);
  await new Sesame("http://api.test", "k", { fetch }).send(email, { idempotencyKey: "order-42" });
  assert.equal(seen[0]!.headers.get("Idempotency-Key"), "order-42");
});

test("retries are bounded", async () => {
  const { fetch, seen } = fakeFetch(() => errorAnswer(503, "service_unavailable", null, "1"));
  const waits: number[] = [];
  const client = new Sesame("http://api.test", "k", { fetch, maxRetries: 2, sleep: async (ms) => void waits.push(ms) });
  await assert.rejects(client.send(email), (err: unknown) => err instanceof SesameError && err.code === "service_unavailable" && err.retryAfterMs === 1000);
  assert.equal(seen.length, 3);
  assert.equal(waits.length, 2);
});

const noRetry: [string, number, string | undefined, string][] = [
  // A monthly quota's Retry-After runs to next month: not waited out.
  ["a wait over the maximum", 429, "86400", "monthly_quota_exceeded"],
  // tracking off before provisioning: 503 without Retry-After.
  ["503 without Retry-After", 503, undefined, "service_unavailable"],
  ["409 with Retry-After", 409, "1", "idempotency_in_progress"],
  ["400", 400, undefined, "invalid_field"],
];
for (const [name, status, retryAfter, code] of noRetry) {
  test(`no retry: ${name}`, async () => {
    const { fetch, seen } = fakeFetch(() => errorAnswer(status, code, "to", retryAfter));
    const waits: number[] = [];
    const client = new Sesame("http://api.test", "k", { fetch, sleep: async (ms) => void waits.push(ms) });
    await assert.rejects(client.send(email), (err: unknown) => err instanceof SesameError && err.status === status && err.code === code);
    assert.equal(seen.length, 1);
    assert.deepEqual(waits, []);
  });
}

test("an error carries the envelope", async () => {
  const { fetch } = fakeFetch(() => errorAnswer(400, "invalid_field", "reply_to[1]", undefined));
  const err = await new Sesame("http://api.test", "k", { fetch }).send(email).catch((e: unknown) => e);
  assert.ok(err instanceof SesameError);
  assert.deepEqual(
    { status: err.status, code: err.code, param: err.param, requestId: err.requestId, retryAfterMs: err.retryAfterMs },
    { status: 400, code: "invalid_field", param: "reply_to[1]", requestId: "req-1", retryAfterMs: null },
  );
  assert.equal(err.message, "sesame: 400 invalid_field (reply_to[1]): m");
});

test("a proxy's own answer is still a SesameError", async () => {
  const { fetch } = fakeFetch(() => new Response(`{"message": "Request Too Long"}`, { status: 413 }));
  await assert.rejects(
    new Sesame("http://api.test", "k", { fetch }).getEmail("x"),
    (err: unknown) => err instanceof SesameError && err.status === 413 && err.code === "" && err.message.includes("Request Too Long"),
  );
});

test("lists follow the cursor, and stop when the caller does", async () => {
  const pages = [
    { data: [{ id: "e1" }, { id: "e2" }], has_more: true, next_cursor: "c1" },
    { data: [{ id: "e3" }], has_more: true, next_cursor: "c2" },
    { data: [{ id: "e4" }], has_more: false, next_cursor: null },
  ];
  const { fetch, seen } = fakeFetch((n) => Response.json(pages[n - 1]));
  const client = new Sesame("http://api.test", "k", { fetch });
  const ids: string[] = [];
  for await (const ev of client.events({ limit: 2 })) ids.push(ev.id);
  assert.deepEqual(ids, ["e1", "e2", "e3", "e4"]);
  assert.deepEqual(seen.map((s) => s.url.searchParams.get("cursor")), [null, "c1", "c2"]);
  assert.deepEqual(seen.map((s) => s.url.searchParams.get("limit")), ["2", "2", "2"]);

  const { fetch: f2, seen: seen2 } = fakeFetch((n) => Response.json(pages[n - 1]));
  for await (const _ of new Sesame("http://api.test", "k", { fetch: f2 }).events()) break;
  assert.equal(seen2.length, 1);
});

test("Retry-After reads seconds and HTTP dates", () => {
  assert.equal(retryAfterMs("50"), 50_000);
  assert.equal(retryAfterMs("Wed, 21 Oct 2026 07:28:10 GMT", Date.parse("Wed, 21 Oct 2026 07:28:00 GMT")), 10_000);
  assert.equal(retryAfterMs(null), null);
  assert.equal(retryAfterMs("soon"), null);
});
