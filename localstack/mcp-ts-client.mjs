// An assistant built on the official TypeScript MCP SDK, connecting to a
// Sesame stack with the SDK's own OAuth client (OAuthClientProvider,
// auth()): internal/devstack's TestMCPTypeScriptClient runs it and drives
// the owner's consent in a browser.
//
//   node localstack/mcp-ts-client.mjs <stack URL>/mcp <recipient> <from>
//
// It writes one JSON object a line on stdout: {"step":"authorize","url":…}
// when the owner must consent (the test opens it), then
// {"step":"done",…} with what the server answered, or {"step":"error",…}.
// The redirect URI is a loopback server of its own, as a desktop client's.
import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [serverUrl, recipient, from] = process.argv.slice(2);
if (!serverUrl || !recipient || !from) {
  console.error('usage: node mcp-ts-client.mjs <mcp URL> <recipient> <from>');
  process.exit(2);
}
const say = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

// The loopback redirect URI: the browser brings the code here.
let gotCallback;
const callback = new Promise((resolve) => { gotCallback = resolve; });
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname !== '/callback') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>Connected</title><p id="done">You may close this window.</p>');
  gotCallback(url.searchParams);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const redirectUrl = `http://127.0.0.1:${server.address().port}/callback`;

// The SDK's OAuthClientProvider, kept in memory: what a client stores
// between runs, it stores here for one.
class Provider {
  #state = randomUUID();
  #client;
  #tokens;
  #verifier;
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: 'TypeScript SDK assistant', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() { return this.#state; }
  clientInformation() { return this.#client; }
  saveClientInformation(info) { this.#client = info; }
  tokens() { return this.#tokens; }
  saveTokens(tokens) { this.#tokens = tokens; }
  redirectToAuthorization(url) { say({ step: 'authorize', url: url.href }); }
  saveCodeVerifier(verifier) { this.#verifier = verifier; }
  codeVerifier() { return this.#verifier; }
}

const text = (result) => result.content?.find((c) => c.type === 'text')?.text ?? '';

async function main() {
  const provider = new Provider();
  const first = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
  try {
    await new Client({ name: 'ts-assistant', version: '1.0.0' }).connect(first);
    throw new Error('connected without a token');
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  const back = await callback;
  if (back.get('state') !== provider.state()) throw new Error(`state ${back.get('state')} is not ours`);
  if (back.get('error')) throw new Error(`the owner refused: ${back.get('error')}`);
  await first.finishAuth(back.get('code'));

  const client = new Client({ name: 'ts-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
  const { tools } = await client.listTools();
  const subject = `From the TypeScript SDK ${randomUUID().slice(0, 8)}`;
  const html = `<p>Sent by ${subject}</p>`;
  const sent = await client.callTool({
    name: 'send_email',
    arguments: { from, to: recipient, subject, html, idempotency_key: randomUUID() },
  });
  if (sent.isError) throw new Error(`send_email: ${text(sent)}`);
  const { id } = JSON.parse(text(sent));
  const got = await client.callTool({ name: 'get_email', arguments: { id } });
  // contacts:write was unticked at the consent: a tool error, not a throw.
  const denied = await client.callTool({ name: 'create_contact', arguments: { email: recipient } });
  await client.close();
  say({
    step: 'done',
    client_id: provider.clientInformation()?.client_id,
    scope: provider.tokens()?.scope,
    tools: tools.map((t) => t.name),
    sent: { id, subject, html },
    got: { isError: !!got.isError, email: JSON.parse(text(got)) },
    denied: { isError: !!denied.isError, error: JSON.parse(text(denied)) },
  });
}

try {
  await main();
} catch (err) {
  say({ step: 'error', message: String(err?.stack ?? err) });
  process.exitCode = 1;
} finally {
  server.close();
}
