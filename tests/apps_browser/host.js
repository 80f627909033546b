// The test host page: a minimal web host of MCP Apps, built on the
// official SDKs, that the browser test (run.mjs) drives.
//
// 1. An MCP client (the TypeScript SDK 2.x) connects over Streamable HTTP
//    to `/mcp` on this page's origin, which the test server relays to the
//    server under test. It declares the Apps extension
//    (`io.modelcontextprotocol/ui`) and form elicitation.
// 2. It lists the tools, shows those the model may see (visibility has
//    `model`), and picks the tool to run: `?tool=` on the page's URL, or
//    the first model-visible tool with `_meta.ui.resourceUri`.
// 3. It reads that tool's UI resource with `resources/read`, and checks its
//    URI and MIME type as the spec's "UI Resource Format" asks.
// 4. It renders the View through the spec's sandbox proxy (sandbox.js), on
//    another origin (`?sandbox=`), whose page carries the CSP built from
//    the resource's `_meta.ui.csp`.
// 5. The official AppBridge talks to the View over PostMessageTransport.
//    As the spec's "Lifecycle" says, the host calls the tool (as the model
//    would, with `?arguments=`), and once the View is initialized sends it
//    the tool's input, then its result.
// 6. The View's `tools/call` goes to the server only for tools whose
//    visibility includes `app` ("Resource Discovery" > "Visibility");
//    others are refused. Every bridged call is written to `#bridge-log`,
//    with `data-` attributes the test reads.
// 7. A server's elicitation shows as a form under the View, which the user
//    (the test) fills in and accepts or declines.
import {
  Client,
  INVALID_PARAMS,
  ProtocolError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const HOST_INFO = { name: "presa-apps-browser-test", version: "1.0.0" };
const APPS_EXTENSION = "io.modelcontextprotocol/ui";

const query = new URLSearchParams(window.location.search);
const SANDBOX_URL = query.get("sandbox");
// `auto` negotiates the newest revision the server speaks (2026-07-28 for
// presa); `legacy` speaks 2025-11-25, as most hosts do today.
const ERA = query.get("era") ?? "auto";
const TOOL = query.get("tool");
const ARGUMENTS = JSON.parse(query.get("arguments") ?? "{}");

const $ = (selector) => document.querySelector(selector);

function setStatus(state, text) {
  const status = $("#status");
  status.dataset.state = state;
  status.textContent = text ?? state;
}

// Appends one line to the bridge log. `fields` become `data-` attributes,
// so that the test can wait for a line by what it says, not by its text.
function logLine(text, fields = {}) {
  const line = document.createElement("li");
  line.textContent = text;
  for (const [key, value] of Object.entries(fields)) {
    line.dataset[key] = String(value);
  }
  $("#bridge-log").appendChild(line);
  console.log(`[host] ${text}`);
}

function resultText(result) {
  const texts = (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text);
  return texts.join(" ") || JSON.stringify(result?.structuredContent ?? {});
}

// Who may see and call a tool: the spec's default is both.
function visibility(tool) {
  return tool?._meta?.ui?.visibility ?? ["model", "app"];
}

// Shows an elicitation as a form, and resolves with the user's answer.
function elicit(params) {
  if (params.mode === "url") {
    return Promise.resolve({ action: "decline" });
  }
  const form = $("#elicitation");
  const fields = $("#elicitation-fields");
  $("#elicitation-message").textContent = params.message;
  fields.replaceChildren();
  const properties = params.requestedSchema?.properties ?? {};
  for (const [name, schema] of Object.entries(properties)) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.name = name;
    input.type = schema.type === "boolean" ? "checkbox" : schema.type === "string" ? "text" : "number";
    label.append(input, ` ${schema.title ?? schema.description ?? name}`);
    fields.appendChild(label);
  }
  logLine(`server → host: elicitation/create "${params.message}"`, { method: "elicitation/create" });
  form.hidden = false;
  return new Promise((resolve) => {
    const finish = (answer) => {
      form.hidden = true;
      form.onsubmit = null;
      $("#elicitation-decline").onclick = null;
      logLine(`host → server: elicitation ${answer.action}`, { method: "elicitation/result", action: answer.action });
      resolve(answer);
    };
    form.onsubmit = (event) => {
      event.preventDefault();
      const content = {};
      for (const [name, schema] of Object.entries(properties)) {
        const input = form.elements.namedItem(name);
        content[name] =
          schema.type === "boolean" ? input.checked : schema.type === "string" ? input.value : Number(input.value);
      }
      finish({ action: "accept", content });
    };
    $("#elicitation-decline").onclick = () => finish({ action: "decline" });
  });
}

async function connect() {
  const client = new Client(HOST_INFO, {
    capabilities: {
      elicitation: { form: {} },
      extensions: { [APPS_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
    },
    versionNegotiation: { mode: ERA },
  });
  client.setRequestHandler("elicitation/create", (request) => elicit(request.params));
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", window.location.origin)));
  const server = client.getServerVersion();
  $("#server").textContent = `${server?.name ?? "?"} ${server?.version ?? ""}`.trim();
  $("#protocol").textContent = client.getNegotiatedProtocolVersion() ?? "?";
  return client;
}

// Reads a UI resource and checks it as the spec's "UI Resource Format" says.
async function readUiResource(client, uri) {
  if (!uri.startsWith("ui://")) {
    throw new Error(`The tool's UI resource ${uri} is not a ui:// URI.`);
  }
  const { contents } = await client.readResource({ uri });
  const content = contents.find((c) => c.uri === uri);
  if (!content) {
    throw new Error(`resources/read of ${uri} returned no content for that URI.`);
  }
  if (content.mimeType !== RESOURCE_MIME_TYPE) {
    throw new Error(`The UI resource ${uri} has MIME type ${content.mimeType}, not ${RESOURCE_MIME_TYPE}.`);
  }
  const html =
    typeof content.text === "string"
      ? content.text
      : new TextDecoder().decode(Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0)));
  const ui = content._meta?.ui ?? {};
  logLine(`host: read ${uri} (${html.length} characters, CSP ${JSON.stringify(ui.csp ?? {})})`, {
    method: "resources/read",
    uri,
  });
  return { html, csp: ui.csp, permissions: ui.permissions };
}

// Answers the View's `tools/call`: only tools the app may call reach the
// server.
function callToolForApp(client, tools) {
  return async (params, extra) => {
    const tool = tools.get(params.name);
    logLine(`app → host: tools/call ${params.name} ${JSON.stringify(params.arguments ?? {})}`, {
      method: "tools/call",
      tool: params.name,
      direction: "request",
    });
    if (!tool || !visibility(tool).includes("app")) {
      const reason = tool ? "its visibility lacks app" : "the server has no such tool";
      logLine(`host → app: refused tools/call ${params.name}: ${reason}`, {
        method: "tools/call",
        tool: params.name,
        outcome: "refused",
      });
      throw new ProtocolError(INVALID_PARAMS, `The host refuses tools/call ${params.name}: ${reason}.`);
    }
    try {
      const result = await client.callTool(params, { signal: extra.mcpReq.signal });
      logLine(`host → app: tools/call ${params.name}: ${result.isError ? "error" : "ok"}: ${resultText(result)}`, {
        method: "tools/call",
        tool: params.name,
        outcome: result.isError ? "error" : "ok",
      });
      return result;
    } catch (error) {
      logLine(`host → app: tools/call ${params.name} failed: ${error.message}`, {
        method: "tools/call",
        tool: params.name,
        outcome: "failed",
      });
      throw error;
    }
  };
}

// Renders the View in the sandbox proxy and runs its lifecycle.
async function render(client, tools, tool, resource, toolResult) {
  const frame = document.createElement("iframe");
  frame.id = "sandbox";
  frame.title = `MCP App of ${tool.name}`;
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin");
  $("#app").appendChild(frame);

  const capabilities = client.getServerCapabilities();
  const bridge = new AppBridge(
    client,
    HOST_INFO,
    { serverTools: capabilities.tools, serverResources: capabilities.resources, logging: {} },
    {
      hostContext: {
        theme: "light",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        platform: "web",
        toolInfo: { tool },
      },
    },
  );
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  bridge.onsandboxready = () => {
    logLine("sandbox → host: sandbox-proxy-ready", { method: "ui/notifications/sandbox-proxy-ready" });
    bridge.sendSandboxResourceReady(resource);
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) {
      frame.style.height = `${Math.min(Math.max(height, 120), 2000)}px`;
    }
  };
  bridge.onloggingmessage = (params) => {
    logLine(`app → host: log ${params.level}: ${JSON.stringify(params.data)}`, { method: "notifications/message" });
  };
  bridge.onmessage = async (params) => {
    logLine(`app → host: ui/message ${JSON.stringify(params.content)}`, { method: "ui/message" });
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    logLine(`app → host: ui/update-model-context ${JSON.stringify(params)}`, { method: "ui/update-model-context" });
    return {};
  };
  // The frame's window stays the same object when it navigates, so the
  // transport can listen before the sandbox page loads.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  // connect() forwards tools/call to the server as is; the host's own
  // handler checks visibility first.
  bridge.oncalltool = callToolForApp(client, tools);

  const sandbox = new URL(SANDBOX_URL);
  sandbox.searchParams.set("csp", JSON.stringify(resource.csp ?? {}));
  frame.src = sandbox.href;

  await initialized;
  const app = bridge.getAppVersion();
  logLine(`app → host: initialized (${app?.name ?? "?"} ${app?.version ?? ""})`, {
    method: "ui/notifications/initialized",
  });
  await bridge.sendToolInput({ arguments: ARGUMENTS });
  logLine(`host → app: tool-input ${JSON.stringify(ARGUMENTS)}`, { method: "ui/notifications/tool-input" });
  setStatus("ready");
  try {
    const result = await toolResult;
    await bridge.sendToolResult(result);
    logLine(`host → app: tool-result ${resultText(result)}`, { method: "ui/notifications/tool-result" });
  } catch (error) {
    await bridge.sendToolCancelled({ reason: error.message });
    logLine(`host → app: tool-cancelled ${error.message}`, { method: "ui/notifications/tool-cancelled" });
  }
  return bridge;
}

async function main() {
  if (!SANDBOX_URL) {
    throw new Error("The page needs ?sandbox=URL of the sandbox proxy, on another origin.");
  }
  setStatus("connecting");
  const client = await connect();
  const listed = await client.listTools();
  const tools = new Map(listed.tools.map((tool) => [tool.name, tool]));
  for (const tool of listed.tools.filter((t) => visibility(t).includes("model"))) {
    const item = document.createElement("li");
    item.dataset.tool = tool.name;
    item.dataset.appCallable = String(visibility(tool).includes("app"));
    item.textContent = getToolUiResourceUri(tool) ? `${tool.name} (${getToolUiResourceUri(tool)})` : tool.name;
    $("#tools").appendChild(item);
  }
  const tool = TOOL
    ? tools.get(TOOL)
    : listed.tools.find((t) => getToolUiResourceUri(t) && visibility(t).includes("model"));
  if (!tool) {
    throw new Error(TOOL ? `The server has no tool ${TOOL}.` : "The server has no model-visible tool with a UI.");
  }
  const uri = getToolUiResourceUri(tool);
  if (!uri) {
    throw new Error(`The tool ${tool.name} has no _meta.ui.resourceUri.`);
  }
  // The model's call and the View's set-up run side by side, as in the
  // spec's "UI Initialization" diagram.
  logLine(`host → server: tools/call ${tool.name} ${JSON.stringify(ARGUMENTS)} (as the model)`, {
    method: "tools/call",
    tool: tool.name,
    direction: "model",
  });
  const toolResult = client.callTool({ name: tool.name, arguments: ARGUMENTS });
  toolResult.catch(() => {});
  const resource = await readUiResource(client, uri);
  setStatus("rendering");
  await render(client, tools, tool, resource, toolResult);
}

window.addEventListener("unhandledrejection", (event) => {
  setStatus("error", `error: ${event.reason?.message ?? event.reason}`);
});
main().catch((error) => {
  console.error(error);
  setStatus("error", `error: ${error.message}`);
});
