// A 2025-11-25 host on the TypeScript SDK 1.x, talking to `jobs` replicas
// through a round-robin proxy: the peer of tests/replicas_proxy.rs.
//
//   node ts_replicas.mjs PROXY_URL shared REPLICA_URL...
//   node ts_replicas.mjs PROXY_URL kill
//
// The proxy names the replica that served each response in an
// `X-Replica` header. The client's `fetch` records it for every request,
// with the JSON-RPC method the request carried, so the test can see which
// replica served what: that is the proof that a session moved between
// replicas, taken from the proxy's own routing.
//
// `shared` runs a session across the replicas: `initialize`, a
// subscription to `jobs://builds/latest`, a `build` whose question the
// client answers, and the update notification it causes; a build as a
// task; then `DELETE`, after which each replica (at the REPLICA_URLs,
// not through the proxy) must answer the session's id with 404.
//
// `kill` starts a build that runs for a minute on the replica that holds
// the GET stream, and once its question is answered prints
// `{"event":"kill","replica":NAME}` and waits for a line on stdin: the
// test kills that replica, then writes the line. The script then records
// how the call in flight ended (the SDK resumes its stream on the replica
// left, which answers with the call's error) and what the transport
// reported, and runs more requests, which must succeed through the
// replica left; a build among them must reach the client's reopened GET
// stream.
//
// Every wait is bounded by a timeout, and waits on an event (a response,
// a notification), never on time. The last line printed is the report,
// `{"event":"report",...}`; a failure ends the script with a non-zero
// status and the reason on stderr. MCP_TS_SDK names the SDK's package
// folder.
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import readline from 'node:readline';

const sdk = process.env.MCP_TS_SDK;
const load = (file) => import(pathToFileURL(path.join(sdk, 'dist/esm', file)).href);
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { ElicitRequestSchema, ResourceUpdatedNotificationSchema } = await load('types.js');

const [proxyUrl, phase, ...replicaUrls] = process.argv.slice(2);
const LATEST = 'jobs://builds/latest';
/// The upper bound of any one wait for something that should come at once.
const PATIENCE_MS = 20_000;
/// How long the call in flight on a replica that dies may take to fail.
const IN_FLIGHT_MS = 10_000;
const started = Date.now();
const since = () => Date.now() - started;

// Everything that happens wakes the waiters, which then check whether
// what they wait for has come.
let wakers = [];
const wake = () => {
  const woken = wakers;
  wakers = [];
  for (const w of woken) w();
};
const waitFor = async (what, found, ms = PATIENCE_MS) => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = found();
    if (value !== undefined && value !== false) return value;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, left);
      wakers.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
};

// Each HTTP request the transport makes: its method, the JSON-RPC method
// it carried ('answer' for a response to the server's request), the
// status, and the replica the proxy chose.
const trail = [];
const recordingFetch = async (url, init = {}) => {
  let body;
  if (typeof init.body === 'string') body = JSON.parse(init.body);
  const entry = {
    http: init.method ?? 'GET',
    what: body === undefined ? undefined : (body.method ?? 'answer'),
    id: body?.id,
    at: since(),
  };
  trail.push(entry);
  try {
    const response = await fetch(url, init);
    entry.status = response.status;
    entry.replica = response.headers.get('x-replica');
    return response;
  } catch (error) {
    entry.error = String(error);
    throw error;
  } finally {
    wake();
  }
};

// What the transport reported on its own: a stream that broke, a
// reconnection that failed.
const transportErrors = [];
const updates = [];
const asked = [];

const connect = async () => {
  const client = new Client(
    { name: 'ts-replicas', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    wake();
    return { action: 'accept', content: { ok: true } };
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push({ uri: notification.params.uri, at: since() });
    wake();
  });
  const transport = new StreamableHTTPClientTransport(new URL(proxyUrl), {
    fetch: recordingFetch,
    // One quick attempt to reopen a broken GET stream, so that a dead
    // replica shows in the report within seconds.
    reconnectionOptions: {
      initialReconnectionDelay: 100,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 3,
    },
  });
  await client.connect(transport);
  client.onerror = (error) => {
    transportErrors.push({ message: String(error?.message ?? error), at: since() });
    wake();
  };
  return { client, transport };
};

/// The trail's entry for request `id` of JSON-RPC method `method`.
const requestEntry = (method, id) => trail.find((e) => e.what === method && e.id === id);
/// The last entry for a JSON-RPC method, and its replica.
const last = (method) => trail.filter((e) => e.what === method).at(-1);
/// The standalone GET stream, once the proxy answered it.
const getStream = () => waitFor('the GET stream', () => trail.find((e) => e.http === 'GET' && e.status));

/// The text of a tool result, or a throw with its content.
const text = (result) => {
  if (result.isError) throw new Error(`the tool failed: ${JSON.stringify(result.content)}`);
  return result.content.map((c) => c.text).join('');
};

/// Calls `build` on `target`, and says which replica took the call and
/// which the answer to its question.
const build = async (client, target) => {
  const before = trail.length;
  const updatesBefore = updates.length;
  const result = text(
    await client.callTool({ name: 'build', arguments: { target } }, undefined, { timeout: PATIENCE_MS }),
  );
  const mine = trail.slice(before);
  const call = mine.find((e) => e.what === 'tools/call');
  // The result may come before the answer's own response (202): the SDK
  // does not wait for that to go on.
  const answer = await waitFor(`the answer to building ${target} accepted`, () =>
    trail.slice(before).find((e) => e.what === 'answer' && e.status),
  );
  // The update comes on the GET stream, from whichever replica built.
  await waitFor(`notifications/resources/updated after building ${target}`, () => updates.length > updatesBefore);
  return { result, call: call?.replica, answer: answer?.replica, answerStatus: answer?.status };
};

const shared = async () => {
  const { client, transport } = await connect();
  const initialize = trail.find((e) => e.what === 'initialize');
  const tools = (await client.listTools()).tools.map((t) => t.name);
  await client.subscribeResource({ uri: LATEST });
  const get = await getStream();

  // Builds until one is built on a replica other than the GET stream's,
  // so that its notification crossed replicas: round robin alternates,
  // and a ping moves the next call by one.
  const builds = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    builds.push(await build(client, `docs${attempt}`));
    if (builds.at(-1).call !== get.replica) break;
    await client.ping();
  }
  const latest = (await client.readResource({ uri: LATEST })).contents[0].text;

  // A task: created, followed with tasks/get, its question answered, its
  // result fetched with tasks/result.
  const taskMessages = [];
  let taskResult;
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'build', arguments: { target: 'all' } },
    undefined,
    { timeout: PATIENCE_MS },
  )) {
    taskMessages.push(message.type);
    if (message.type === 'error') throw message.error;
    if (message.type === 'result') taskResult = text(message.result);
  }
  const taskReplicas = {};
  for (const e of trail) {
    if (e.what?.startsWith('tasks/') || e.what === 'tools/call') {
      (taskReplicas[e.what] ??= new Set()).add(e.replica);
    }
  }

  const sessionId = transport.sessionId;
  const protocolVersion = transport.protocolVersion;
  await transport.terminateSession();
  const deleted = trail.filter((e) => e.http === 'DELETE').at(-1);
  // What each replica says to the ended session, asked directly.
  const afterDelete = [];
  for (const url of replicaUrls) {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': protocolVersion,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
    });
    afterDelete.push(response.status);
    await response.body?.cancel();
  }
  await client.close();
  return {
    initialize: initialize.replica,
    protocolVersion,
    tools,
    get: get.replica,
    builds,
    latest,
    asked,
    updates: updates.map((u) => u.uri),
    task: {
      messages: taskMessages,
      result: taskResult,
      replicas: Object.fromEntries(Object.entries(taskReplicas).map(([k, v]) => [k, [...v].sort()])),
    },
    deleteStatus: deleted?.status,
    afterDelete,
  };
};

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const kill = async () => {
  const { client, transport } = await connect();
  const get = await getStream();
  await client.subscribeResource({ uri: LATEST });
  const tools = (await client.listTools()).tools.map((t) => t.name);
  // The hardest case: the replica that dies holds both the call in
  // flight and the GET stream. Round robin sends each request to the
  // other replica than the last one, so a ping moves the call onto the
  // GET stream's replica when it would miss it.
  if (trail.at(-1).replica === get.replica) await client.ping();

  // A build that works for a minute once confirmed. SDK 1.32.2 ends a
  // call whose stream broke only when the server answers the stream's
  // resumption (a GET with Last-Event-ID) with the call's response or
  // error, or when the call's timeout ends it (-32001): the timeout is
  // short, so that a server that never answers fails the run quickly.
  const before = trail.length;
  const askedBefore = asked.length;
  const inFlight = client
    .callTool({ name: 'build', arguments: { target: 'slow', seconds: 60 } }, undefined, { timeout: IN_FLIGHT_MS })
    .then(
      (result) => ({ ok: true, result }),
      (error) => ({ ok: false, error: String(error?.message ?? error), code: error?.code }),
    );
  await waitFor('the question of the slow build', () => asked.length > askedBefore);
  const answer = await waitFor('the answer to the slow build accepted', () =>
    trail.slice(before).find((e) => e.what === 'answer' && e.status),
  );
  const victim = trail.slice(before).find((e) => e.what === 'tools/call').replica;
  if (victim !== get.replica) throw new Error(`the call went to ${victim}, the GET stream to ${get.replica}`);
  const errorsBefore = transportErrors.length;

  // Times are from when the kill was asked for: an upper bound of how
  // long after the kill each thing came.
  const killedAt = since();
  console.log(JSON.stringify({ event: 'kill', replica: victim }));
  const go = await lines.next();
  if (go.done) throw new Error('the test closed stdin instead of killing a replica');

  const outcome = await inFlight;
  outcome.afterMs = since() - killedAt;
  // The transport's report of the broken stream comes before the call
  // ends: both come from the same broken connection.
  const seen = transportErrors.slice(errorsBefore).map((e) => ({ message: e.message, afterMs: e.at - killedAt }));

  // The next requests, through the replica left.
  const afterTrail = trail.length;
  const toolsAfter = (await client.listTools()).tools.map((t) => t.name);
  const rebuilt = await build(client, 'again');
  const servedAfter = [...new Set(trail.slice(afterTrail).filter((e) => e.http === 'POST').map((e) => e.replica))];
  const gets = trail.filter((e) => e.http === 'GET').map((e) => ({ status: e.status, replica: e.replica, error: e.error }));

  await transport.terminateSession();
  await client.close();
  return {
    tools,
    get: get.replica,
    victim,
    answerStatus: answer.status,
    inFlight: outcome,
    transportErrors: seen,
    toolsAfter,
    rebuilt,
    servedAfter,
    gets,
  };
};

try {
  const report = phase === 'shared' ? await shared() : phase === 'kill' ? await kill() : undefined;
  if (report === undefined) throw new Error(`unknown phase ${phase}: shared or kill`);
  console.log(JSON.stringify({ event: 'report', ...report, trail }));
  process.exit(0);
} catch (error) {
  console.error(error?.stack ?? String(error));
  console.error(JSON.stringify({ trail, transportErrors }));
  process.exit(1);
}
