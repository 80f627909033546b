// A legacy (2025-11-25) MCP server on the TypeScript SDK 1.x, over stdio:
// the peer of tests/interop_ts.rs and presa-cli/tests/interop_ts.rs.
//
// - `greet`, a tool that asks the client with a real `elicitation/create`
//   request before it answers;
// - `wait`, a tool that may run as a 2025-11-25 task (the SDK's
//   experimental tasks: a task store behind `tasks/get`, `tasks/result`
//   and `tasks/cancel`), done after `ms` milliseconds; as a task without
//   `ms` it never ends, until cancelled. With `confirm` it asks first,
//   and a task asks through `tasks/result`, as the SDK sends a task's
//   requests;
// - `welcome`, a prompt with a required argument, `name`;
// - `note://motd`, a static text resource; any other URI is not found
//   (-32002). A client that subscribes to it (`resources/subscribe`) is
//   sent `notifications/resources/updated` for it at once, so that a
//   watcher sees an update with nothing else to trigger one;
// - `note://{topic}`, a resource template whose `topic` completes from a
//   few topics (`completion/complete`); `welcome`'s `name` completes too;
// - `logging`, so `logging/setLevel` is answered (by the SDK);
// - `env`, a tool that answers with the environment's value of `name`,
//   for `presa -e`; and one line on stderr at start, for
//   `presa --server-log`.
//
// With MCP_TS_EXIT_AFTER_UPDATE set, the server exits once it sent that
// first update, as a server that ends while watched.
//
// A stdio server's process ends with its client's, so a task created by
// one client is found by the next (`presa task ...`) only if the tasks
// are kept outside the process: when MCP_TS_TASKS names a file, they are
// kept there. A task's work still ends with its process.
//
// MCP_TS_SDK names the SDK's package folder (scripts/interop.sh sets it).
import { pathToFileURL } from 'node:url';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const sdk = process.env.MCP_TS_SDK;
const load = (file) => import(pathToFileURL(path.join(sdk, 'dist/esm', file)).href);
const { Server } = await load('server/index.js');
const { StdioServerTransport } = await load('server/stdio.js');
const { InMemoryTaskStore, InMemoryTaskMessageQueue } = await load('experimental/tasks/stores/in-memory.js');
const {
  ListToolsRequestSchema,
  CallToolRequestSchema,
  ListPromptsRequestSchema,
  GetPromptRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  CompleteRequestSchema,
  McpError,
  ErrorCode
} = await load('types.js');

// The SDK's in-memory store, read from the file before each operation and
// written back after it. Each operation runs to its end at once (none
// waits), so no other one comes between the read and the write.
class FileTaskStore extends InMemoryTaskStore {
  constructor(file) {
    super();
    this.file = file;
  }
}
for (const op of ['createTask', 'getTask', 'storeTaskResult', 'getTaskResult', 'updateTaskStatus', 'listTasks']) {
  const inMemory = InMemoryTaskStore.prototype[op];
  FileTaskStore.prototype[op] = function (...args) {
    this.tasks = new Map(existsSync(this.file) ? JSON.parse(readFileSync(this.file, 'utf8')) : []);
    const done = inMemory.apply(this, args);
    writeFileSync(this.file, JSON.stringify([...this.tasks]));
    return done;
  };
}
const tasksFile = process.env.MCP_TS_TASKS;

const server = new Server(
  { name: 'ts-legacy', version: '1.0.0' },
  {
    capabilities: {
      tools: {},
      prompts: {},
      resources: { subscribe: true },
      completions: {},
      logging: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }
    },
    instructions: 'A legacy server on the TypeScript SDK, for presa to talk to.',
    taskMessageQueue: new InMemoryTaskMessageQueue(),
    taskStore: tasksFile ? new FileTaskStore(tasksFile) : new InMemoryTaskStore()
  }
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'greet',
      description: 'Greets someone, if the user agrees',
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name']
      }
    },
    {
      name: 'wait',
      description: 'Waits ms milliseconds, if confirmed; as a task without ms, forever',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer' }, confirm: { type: 'boolean' } } },
      execution: { taskSupport: 'optional' }
    },
    {
      name: 'env',
      description: "Answers with the value of the environment's variable `name`",
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
    }
  ]
}));

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  switch (request.params.name) {
    case 'greet':
      return greet(request);
    case 'wait':
      return wait(request, extra);
    case 'env':
      return { content: [{ type: 'text', text: process.env[request.params.arguments?.name] ?? '' }] };
    default:
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
  }
});

async function greet(request) {
  const name = request.params.arguments?.name ?? 'nobody';
  const answer = await server.elicitInput({
    message: `Greet ${name}?`,
    requestedSchema: {
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok']
    }
  });
  const ok = answer.action === 'accept' && answer.content?.ok === true;
  return { content: [{ type: 'text', text: ok ? `Hello, ${name}!` : 'not greeted' }] };
}

// Asked for a task, `wait` answers with it at once and goes on in the
// background: when `confirm`, it first asks whether to wait, with an
// `elicitation/create` related to the task (the SDK queues it for
// `tasks/result` to deliver), the task `input_required` meanwhile. Its
// timer does not keep the process alive once the client has gone.
async function wait(request, extra) {
  const { ms, confirm } = request.params.arguments ?? {};
  const done = (text) => ({ content: [{ type: 'text', text }] });
  const waited = done(`waited ${ms ?? 0} ms`);
  const asked = (options) =>
    server
      .elicitInput({ message: `Wait ${ms ?? 0} ms?`, requestedSchema: OK_SCHEMA }, options)
      .then((answer) => answer.action === 'accept' && answer.content?.ok === true);
  if (!request.params.task) {
    if (confirm && !(await asked())) return done('not waited');
    await sleep(ms ?? 0);
    return waited;
  }
  const store = extra.taskStore;
  const { taskId } = await store.createTask({ ttl: request.params.task.ttl, pollInterval: 50 });
  const work = async () => {
    if (confirm) {
      await store.updateTaskStatus(taskId, 'input_required');
      const ok = await asked({ relatedTask: { taskId } });
      if (!ok) return store.storeTaskResult(taskId, 'completed', done('not waited'));
      await store.updateTaskStatus(taskId, 'working');
    }
    if (ms === undefined) return;
    await sleep(ms);
    await store.storeTaskResult(taskId, 'completed', waited);
  };
  work().catch((error) => console.error(`task ${taskId}:`, error));
  return { task: await store.getTask(taskId) };
}

const OK_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());

server.setRequestHandler(ListPromptsRequestSchema, async () => ({
  prompts: [
    {
      name: 'welcome',
      description: 'Welcomes someone',
      arguments: [{ name: 'name', description: 'Who to welcome', required: true }]
    }
  ]
}));

server.setRequestHandler(GetPromptRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  if (name !== 'welcome') {
    throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  }
  if (!args?.name) {
    throw new McpError(ErrorCode.InvalidParams, 'Missing required argument: name');
  }
  return {
    description: 'Welcomes someone',
    messages: [{ role: 'user', content: { type: 'text', text: `Welcome, ${args.name}!` } }]
  };
});

const MOTD = { uri: 'note://motd', name: 'motd', mimeType: 'text/plain' };

server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [MOTD] }));

server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
  const { uri } = request.params;
  if (uri !== MOTD.uri) {
    throw new McpError(-32002, `Resource not found: ${uri}`);
  }
  return { contents: [{ uri, mimeType: MOTD.mimeType, text: 'Be kind to one another.' }] };
});

const TEMPLATE = { uriTemplate: 'note://{topic}', name: 'note', mimeType: 'text/plain' };
const TOPICS = ['motd', 'moon', 'tides'];
const NAMES = ['Ada', 'Alan', 'Grace'];

server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [TEMPLATE]
}));

server.setRequestHandler(CompleteRequestSchema, async (request) => {
  const { ref, argument } = request.params;
  const among =
    ref.type === 'ref/resource' && ref.uri === TEMPLATE.uriTemplate && argument.name === 'topic'
      ? TOPICS
      : ref.type === 'ref/prompt' && ref.name === 'welcome' && argument.name === 'name'
        ? NAMES
        : [];
  const values = among.filter((value) => value.startsWith(argument.value));
  return { completion: { values, total: values.length, hasMore: false } };
});

server.setRequestHandler(SubscribeRequestSchema, async (request) => {
  const { uri } = request.params;
  if (uri !== MOTD.uri) {
    throw new McpError(-32002, `Resource not found: ${uri}`);
  }
  // After the answer, which the SDK sends once this returns. With
  // MCP_TS_EXIT_AFTER_UPDATE set, the server then exits, as a server that
  // ends while watched.
  setImmediate(async () => {
    await server.sendResourceUpdated({ uri });
    if (process.env.MCP_TS_EXIT_AFTER_UPDATE) process.exit(0);
  });
  return {};
});

server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));

console.error('ts-legacy: serving on stdio');
await server.connect(new StdioServerTransport());
