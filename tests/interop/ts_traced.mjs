// A 2025-11-25 host on the TypeScript SDK 1.x that sends W3C trace
// context in a request's `_meta`, as SEP-414 has it: the peer of
// tests/otel_e2e.rs.
//
//   node ts_traced.mjs URL TRACEPARENT
//
// It calls the `jobs` server's `build` with `_meta.traceparent` set,
// answers its question, and prints the result's text as one JSON line.
// Every wait is bounded by the SDK's request timeout. MCP_TS_SDK names
// the SDK's package folder.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const sdk = process.env.MCP_TS_SDK;
const load = (file) => import(pathToFileURL(path.join(sdk, 'dist/esm', file)).href);
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { ElicitRequestSchema } = await load('types.js');

const [url, traceparent] = process.argv.slice(2);
const client = new Client(
  { name: 'ts-traced', version: '1.0.0' },
  { capabilities: { elicitation: {} } },
);
client.setRequestHandler(ElicitRequestSchema, async () => ({
  action: 'accept',
  content: { ok: true },
}));
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({
  name: 'build',
  arguments: { target: 'traced' },
  _meta: { traceparent },
});
console.log(JSON.stringify({ text: result.content?.[0]?.text ?? null }));
await client.close();
