// The client against the local stack, as a customer uses it. The Go test
// TestTypeScriptClientAgainstTheStack (internal/devstack) serves the stack,
// runs this file with the variables below, and runs the delivery pipeline
// in the background; `make test` runs it. Without them it is skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import { Sesame, SesameError, parse, verify, SIGNATURE_HEADER, WebhookVerificationError } from "../src/index.js";

const env = process.env;
const stack = env.SESAME_URL !== undefined;
const skip = stack ? false : "needs the local stack: run by `make test` (TestTypeScriptClientAgainstTheStack)";
const html = env.SESAME_HTML ?? "";

/** The messages the SES emulator captured with subject. */
async function delivered(subject: string): Promise<{ destination: { to: string[] } }[]> {
  const res = await fetch(`${env.AWS_ENDPOINT_URL_SESV2}/store`);
  const store = (await res.json()) as { emails: { subject: string; destination: { to: string[] } }[] };
  return store.emails.filter((m) => m.subject === subject);
}

const fresh = (tag: string) => ({
  to: `${tag}-${crypto.randomUUID().slice(0, 13)}@example.com`,
  subject: `Order ${crypto.randomUUID()}`,
  html,
});

test("send, read back, page, and verify the webhooks that follow", { skip }, async () => {
  // The customer's endpoint, registered by the harness at this address.
  const deliveries: { header: string | undefined; body: Buffer }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({ header: req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(Number(env.SESAME_WEBHOOK_PORT), "127.0.0.2", resolve));
  try {
    const client = new Sesame(env.SESAME_URL!, env.SESAME_KEY!);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const m = fresh("tsclient");
      const res = await client.send(m);
      assert.equal(res.status, "sent");
      assert.equal(res.success, true);
      const got = await delivered(m.subject);
      assert.equal(got.length, 1, `the SES emulator holds ${got.length} messages for send ${i}`);
      assert.ok(got[0]!.destination.to.some((to) => to.includes(m.to)));
      ids.push(res.id);
    }

    const back = await client.getEmail(ids[0]!);
    assert.equal(back.id, ids[0]);
    assert.equal(back.status === "sent" || back.status === "delivered", true);
    await assert.rejects(
      client.getEmail("0195a3c2-7c2e-7000-8000-000000000001"),
      (err: unknown) => err instanceof SesameError && err.status === 404 && err.code === "not_found" && err.requestId !== "",
    );

    const listed: string[] = [];
    for await (const e of client.emails({ limit: 1 })) listed.push(e.id);
    assert.deepEqual(listed, [...ids].reverse());

    // The harness's pipeline delivers a webhook for each Delivery.
    for (let i = 0; i < 600 && deliveries.length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(deliveries.length, 3);
    const hooked: string[] = [];
    for (const d of deliveries) {
      const ev = await parse(env.SESAME_WEBHOOK_SECRET!, d.header, new Uint8Array(d.body));
      assert.equal(ev.type, "email.delivered");
      hooked.push(ev.data!.id);
      await assert.rejects(
        verify(env.SESAME_WEBHOOK_SECRET!, d.header, Buffer.concat([d.body, Buffer.from(" ")])),
        (err: unknown) => err instanceof WebhookVerificationError && err.reason === "mismatch",
      );
    }
    assert.deepEqual(hooked.sort(), [...ids].sort());

    const feed: string[] = [];
    for await (const ev of client.events({ limit: 2 })) if (ev.type === "email.delivered") feed.push(ev.data!.id);
    assert.deepEqual(feed.sort(), [...ids].sort());
  } finally {
    server.close();
  }
});

test("Sesame's own 429 is waited out and the send retried once", { skip }, async () => {
  // SESAME_LIMITED_KEY has used its minute; the wait moves the stack's clock.
  const waits: number[] = [];
  const advance = async (ms: number) => {
    waits.push(ms);
    const res = await fetch(`${env.SESAME_CLOCK_URL}/advance?ms=${ms}`, { method: "POST" });
    assert.equal(res.status, 204);
  };
  const client = new Sesame(env.SESAME_URL!, env.SESAME_LIMITED_KEY!, { sleep: advance });
  const m = fresh("tsretry");
  const res = await client.send(m);
  assert.equal(res.status, "sent");
  assert.deepEqual(waits, [60_000]); // the clock stands at the start of a minute
  assert.equal((await delivered(m.subject)).length, 1);
});

test("a batch with a refused item, a contact's life, the do-not-send list", { skip }, async () => {
  const client = new Sesame(env.SESAME_URL!, env.SESAME_KEY!);
  const good = fresh("tsbatch");
  const items = await client.sendBatch([good, { to: "not an address", subject: "x", html }]);
  assert.equal(items.length, 2);
  assert.ok(!("error" in items[0]!) && items[0]!.status === "sent");
  const refused = items[1]!;
  assert.ok("error" in refused);
  assert.deepEqual([refused.index, refused.error.code, refused.error.param], [1, "invalid_field", "emails[1].to"]);
  assert.equal((await delivered(good.subject)).length, 1);

  const addr = `tscontact-${crypto.randomUUID().slice(0, 13)}@example.com`;
  const contact = await client.createContact({ email: addr, first_name: "Ann" });
  assert.equal(contact.email, addr);
  await assert.rejects(
    client.createContact({ email: addr }),
    (err: unknown) => err instanceof SesameError && err.code === "contact_exists" && err.param === "email",
  );
  const updated = await client.updateContact(contact.id, { last_name: "Example" });
  assert.deepEqual([updated.first_name, updated.last_name], ["Ann", "Example"]);
  const emails: string[] = [];
  for await (const c of client.contacts()) emails.push(c.email);
  assert.ok(emails.includes(addr));
  await client.deleteContact(contact.id);
  await assert.rejects(client.getContact(contact.id), (err: unknown) => err instanceof SesameError && err.status === 404);

  const blocked = `tssuppressed-${crypto.randomUUID().slice(0, 13)}@example.com`;
  assert.equal((await client.suppress(blocked)).reason, "manual");
  const listed: string[] = [];
  for await (const s of client.suppressions({ email: blocked })) listed.push(s.email);
  assert.deepEqual(listed, [blocked]);
  const m = { ...fresh("tssuppressed"), to: blocked };
  const res = await client.send(m);
  assert.deepEqual([res.success, res.status], [false, "suppressed"]);
  assert.equal((await delivered(m.subject)).length, 0);
  assert.equal((await client.unsuppress(blocked)).email, blocked);
});
