// A 2025-11-25 client on the TypeScript SDK 1.x, over stdio: the peer of
// tests/interop_ts.rs's structured-output test. It lists the tools of the
// server it spawns (argv: the command and its arguments) and calls each the
// way a host does, with `callTool`, which checks structured content against
// the tool's listed `outputSchema`, and `fullness` as a task through
// `experimental.tasks.callToolStream`, which checks it too. It prints one
// JSON line: the tools listed and each call's structured content; any
// failure ends it with a non-zero status and the SDK's message on stderr.
//
// MCP_TS_SDK names the SDK's package folder (scripts/interop.sh sets it).
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const sdk = process.env.MCP_TS_SDK;
const load = (file) => import(pathToFileURL(path.join(sdk, 'dist/esm', file)).href);
const { Client } = await load('client/index.js');
const { StdioClientTransport } = await load('client/stdio.js');

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'ts-outputs', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));

const { tools } = await client.listTools();
const call = async (name, args = {}) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
};

const results = {
  add_note: await call('add_note', { text: 'milk', tags: ['shop'] }),
  add_note_untagged: await call('add_note', { text: 'eggs', tags: null }),
  list_ids: await call('list_ids'),
  get_note: await call('get_note', { id: 1 }),
  get_note_missing: await call('get_note', { id: 99 }),
  summary: await call('summary'),
  fullness: await call('fullness'),
};

let taskCreated = false;
for await (const message of client.experimental.tasks.callToolStream({ name: 'fullness', arguments: {} })) {
  if (message.type === 'taskCreated') taskCreated = true;
  if (message.type === 'error') throw message.error;
  if (message.type === 'result') results.fullness_task = message.result.structuredContent;
}

console.log(JSON.stringify({ listed: tools.map((t) => t.name).sort(), taskCreated, results }));
await client.close();
