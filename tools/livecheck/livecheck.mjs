// Checks live events with the real clients: graphql-ws (graphql-transport-ws
// over websockets) and graphql-sse (distinct connections). For each, it
// subscribes, registers an agent through a mutation, and exits non-zero
// unless the agent.registered event for that agent arrives within the timeout.
// Environment: URL (http://host:port/graphql), API_KEY.
import { createClient as createWS } from 'graphql-ws';
import { createClient as createSSE } from 'graphql-sse';
import WebSocket from 'ws';

const url = process.env.URL ?? 'http://127.0.0.1:8080/graphql';
const key = process.env.API_KEY;
const timeoutMs = Number(process.env.TIMEOUT_MS ?? 30000);
if (!key) {
  console.error('livecheck: set API_KEY');
  process.exit(2);
}
const subscription = 'subscription { events(types: ["agent.registered"]) { id type createdAt data } }';

async function register(name) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({
      query: 'mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }',
      variables: { in: { name, authorizedActions: ['purchase'], spendingLimit: '10', currency: 'USD', environment: 'sandbox' } },
    }),
  });
  const body = await res.json();
  if (!body.data) throw new Error(`registerAgent: ${JSON.stringify(body)}`);
  return body.data.registerAgent.id;
}

// check subscribes with client, waits until the subscription is live (the
// server acknowledged it), triggers one event and waits for it.
async function check(name, client) {
  const agentName = `livecheck-${name}-${Date.now()}`;
  const started = Date.now();
  const it = client.iterate({ query: subscription });
  // Give the server a moment to register the subscription before writing.
  const first = it.next();
  await new Promise((r) => setTimeout(r, 500));
  const agentId = await register(agentName);
  const deadline = new Promise((_, reject) => setTimeout(() => reject(new Error(`${name}: no event within ${timeoutMs} ms`)), timeoutMs));
  let pending = first;
  for (;;) {
    const { value, done } = await Promise.race([pending, deadline]);
    if (done) throw new Error(`${name}: the stream ended without the event`);
    if (value.errors) throw new Error(`${name}: ${JSON.stringify(value.errors)}`);
    const ev = value.data.events;
    if (ev.type === 'agent.registered' && ev.data.id === agentId) {
      console.log(`${name}: ${ev.id} for ${agentId} in ${Date.now() - started} ms`);
      await it.return?.();
      return;
    }
    pending = it.next();
  }
}

const wsClient = createWS({
  url: url.replace(/^http/, 'ws'),
  webSocketImpl: WebSocket,
  connectionParams: { Authorization: `Bearer ${key}` },
  retryAttempts: 0,
});
const sseClient = createSSE({
  url,
  singleConnection: false,
  headers: { Authorization: `Bearer ${key}` },
  retryAttempts: 0,
});
try {
  await check('graphql-ws', wsClient);
  await check('graphql-sse', sseClient);
  console.log('livecheck: ok');
} catch (err) {
  console.error('livecheck: FAILED:', err.message ?? err);
  process.exitCode = 1;
} finally {
  await wsClient.dispose();
  sseClient.dispose();
}
