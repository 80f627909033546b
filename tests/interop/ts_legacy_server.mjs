// A legacy (2025-11-25) MCP server on the TypeScript SDK 1.x, over stdio:
// the peer of tests/interop_ts.rs. Its one tool, `greet`, asks the client
// with a real `elicitation/create` request before it answers.
//
// MCP_TS_SDK names the SDK's package folder (scripts/interop.sh sets it).
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const sdk = process.env.MCP_TS_SDK;
const load = (file) => import(pathToFileURL(path.join(sdk, 'dist/esm', file)).href);
const { Server } = await load('server/index.js');
const { StdioServerTransport } = await load('server/stdio.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = await load('types.js');

const server = new Server(
  { name: 'ts-legacy', version: '1.0.0' },
  { capabilities: { tools: {} } }
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
    }
  ]
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
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
});

await server.connect(new StdioServerTransport());
