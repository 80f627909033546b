// A stand-in MCP Apps server on the official TypeScript SDK and the
// ext-apps server helpers, for checking the browser test's host against
// an implementation other than presa's.
//
//   node standin_server.mjs   (prints "serving ... at http://127.0.0.1:PORT/mcp")
import { build } from "esbuild";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const HERE = dirname(fileURLToPath(import.meta.url));
const URI = "ui://standin/dashboard";

const view = await build({
  entryPoints: [join(HERE, "standin_view.js")],
  bundle: true, write: false, format: "esm", platform: "browser", target: "chrome120", logLevel: "warning",
});
const script = view.outputFiles[0].text.replaceAll("</script", "<\\/script");
const html = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Stand-in jobs</title></head>
<body><h1>Jobs (stand-in)</h1>
<p><input id="target" value="all"> <button id="start-build" type="button">Start build</button></p>
<ul id="jobs"></ul><p id="last-result"></p><p id="status">connecting</p>
<script type="module">${script}</script></body></html>`;

// The builds, newest first, for `list_jobs`; at most 100.
const jobs = [];

function newServer() {
  const server = new McpServer({ name: "standin-jobs", version: "1.0.0" });
  registerAppResource(server, "Jobs dashboard", URI, {}, async () => ({
    contents: [{ uri: URI, mimeType: RESOURCE_MIME_TYPE, text: html, _meta: { ui: { csp: {} } } }],
  }));
  registerAppTool(
    server,
    "build",
    {
      description: "Builds a target.",
      inputSchema: z.object({ target: z.string() }),
      _meta: { ui: { resourceUri: URI } },
    },
    async ({ target }) => {
      jobs.unshift({ id: `call-${jobs.length + 1}`, target, status: "built" });
      jobs.length = Math.min(jobs.length, 100);
      return { content: [{ type: "text", text: `built ${target}` }] };
    },
  );
  registerAppTool(
    server,
    "list_jobs",
    {
      description: "The builds, newest first.",
      _meta: { ui: { resourceUri: URI, visibility: ["app"] } },
    },
    async () => ({ content: [{ type: "text", text: JSON.stringify({ jobs }) }], structuredContent: { jobs } }),
  );
  registerAppTool(
    server,
    "wipe",
    {
      description: "Deletes every build. Only the model may call it.",
      _meta: { ui: { resourceUri: URI, visibility: ["model"] } },
    },
    async () => ({ content: [{ type: "text", text: "wiped" }] }),
  );
  return server;
}

// One transport (and server) per session, as the SDK's examples keep them.
const sessions = new Map();
const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
    body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
  });
  const id = req.headers["mcp-session-id"];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    await newServer().connect(transport);
  }
  const response = await transport.handleRequest(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return res.end();
  for await (const chunk of response.body) res.write(chunk);
  res.end();
});
http.listen(0, "127.0.0.1", () => {
  console.error(`serving the stand-in at http://127.0.0.1:${http.address().port}/mcp`);
});
