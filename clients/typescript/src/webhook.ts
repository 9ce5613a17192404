// Verifies Sesame's webhook deliveries with Web Crypto (crypto.subtle), so
// it runs in Node 20+, Deno, Bun, browsers and edge runtimes alike.
import type { components } from "./schema.js";

/** The header carrying "t=<unix seconds>,v1=<hex>[,v1=<hex>]". */
export const SIGNATURE_HEADER = "X-Service-Signature";

export type WebhookEvent = components["schemas"]["Event"];

export class WebhookVerificationError extends Error {
  /** header: missing or malformed; mismatch: no v1 is the body's; expired: t outside the tolerance. */
  readonly reason: "header" | "mismatch" | "expired";

  constructor(reason: "header" | "mismatch" | "expired", message: string) {
    super(`webhook: ${message}`);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

const encoder = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * Checks a delivery over its raw body (before any JSON parsing): one v1
 * value must be the HMAC-SHA256 of "<t>.<body>" keyed by the whole secret
 * string (whsec_ included). During a secret rotation Sesame signs with both
 * secrets, so a receiver holding either verifies. t must be within
 * toleranceSeconds of now. Throws a WebhookVerificationError.
 */
export async function verify(
  secret: string,
  header: string | null | undefined,
  body: string | Uint8Array,
  toleranceSeconds = 300,
  now: Date = new Date(),
): Promise<void> {
  let t: string | undefined;
  const sigs: Uint8Array<ArrayBuffer>[] = [];
  for (const part of (header ?? "").split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) throw new WebhookVerificationError("header", "malformed signature header");
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === "t") {
      if (t !== undefined) throw new WebhookVerificationError("header", "malformed signature header");
      t = v;
    } else if (k === "v1") {
      const sig = hexBytes(v);
      if (sig) sigs.push(sig);
    }
  }
  if (t === undefined || !/^\d+$/.test(t) || sigs.length === 0) {
    throw new WebhookVerificationError("header", "malformed signature header");
  }
  const raw = typeof body === "string" ? encoder.encode(body) : body;
  const signed = new Uint8Array(t.length + 1 + raw.length);
  signed.set(encoder.encode(t + "."), 0);
  signed.set(raw, t.length + 1);
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  let matched = false;
  // Every value is checked (subtle.verify compares in constant time).
  for (const sig of sigs) {
    matched = (await crypto.subtle.verify("HMAC", key, sig, signed)) || matched;
  }
  if (!matched) throw new WebhookVerificationError("mismatch", "signature does not match");
  const age = now.getTime() / 1000 - Number(t);
  if (Math.abs(age) > toleranceSeconds) {
    throw new WebhookVerificationError("expired", "signature timestamp outside the tolerance");
  }
}

/** Verifies a delivery, then decodes its body. */
export async function parse(
  secret: string,
  header: string | null | undefined,
  body: string | Uint8Array,
  toleranceSeconds = 300,
): Promise<WebhookEvent> {
  await verify(secret, header, body, toleranceSeconds);
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  return JSON.parse(text) as WebhookEvent;
}
