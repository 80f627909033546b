// The MCP Apps browser test: headless Chromium loads the test host page
// (host.js), which renders the server's app in the spec's sandbox, and the
// test clicks in the app and reads what the app and the host show.
//
//   node run.mjs --mcp http://127.0.0.1:PORT/mcp [--out DIR] [--era auto|legacy]
//                [--name NAME] [--tool TOOL] [--arguments JSON]
//
// 1. It bundles host.js for the browser with esbuild, in memory.
// 2. It serves two origins on loopback, each on a port the system picks:
//    the host (the page, its script, and `/mcp` relayed to the server under
//    test, so that the page calls its own origin), and the sandbox proxy
//    (sandbox.html, with the Content-Security-Policy the spec builds from
//    the resource's `_meta.ui.csp`). The spec requires that the two differ.
// 3. Chromium (`CHROMIUM`, or Debian's /usr/bin/chromium) runs through
//    playwright-core; Playwright downloads no browser.
// 4. The test waits on selectors and events, each with a timeout, never
//    for a fixed time. It fails on any error the page or a frame reports.
// 5. It writes a screenshot to DIR/NAME-ERA.png, also when it fails, and
//    prints one line saying what it saw.
//
// The checks, in order (`scenario`): the host gets ready; the View runs in
// an opaque origin, in an iframe sandboxed `allow-scripts` only, inside
// the sandbox proxy on another origin, and can neither read the host page
// nor fetch from the host's origin (the CSP's violation event says so);
// the host refuses the View's `tools/call` of a tool it may not call; the
// View lists the jobs with the app-only `list_jobs`, which the model's
// tool list leaves out; the model's `build` reaches the View, which lists
// it; a click on `#start-build` goes through the bridge as `tools/call
// build`, the user confirms it in the host's form, the host logs the
// answer, and the app shows `built TARGET` and lists the new build once.
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { readFile, mkdir } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const HERE = dirname(fileURLToPath(import.meta.url));
// How long any one thing the test waits for may take.
const TIMEOUT_MS = 20_000;

const { values: options } = parseArgs({
  options: {
    mcp: { type: "string" },
    out: { type: "string", default: "target/apps-browser" },
    era: { type: "string", default: "auto" },
    // What the server is called in the screenshot's name and the summary.
    name: { type: "string", default: "server" },
    // The tool the host calls as the model would, and its arguments: by
    // default the first model-visible tool with a UI.
    tool: { type: "string" },
    arguments: { type: "string" },
  },
});
if (!options.mcp) {
  console.error("usage: node run.mjs --mcp http://127.0.0.1:PORT/mcp [--out DIR] [--era auto|legacy]");
  process.exit(2);
}
const MCP_URL = new URL(options.mcp);
// Each run builds targets named after its era, so that two runs against
// one server tell their builds apart.
options.arguments ??= JSON.stringify({ target: `docs-${options.era}` });
const OUT = resolve(options.out);
const SCREENSHOT = join(OUT, `${options.name}-${options.era}.png`);

// The CSP of the spec's "Content Security Policy Enforcement", from the
// resource's `_meta.ui.csp`. With no metadata it is the spec's restrictive
// default.
function contentSecurityPolicy(csp = {}) {
  const list = (domains) => (Array.isArray(domains) ? domains.filter(isSource).join(" ") : "");
  const resources = list(csp.resourceDomains);
  const wasm = csp.wasmUnsafeEval === true ? "'wasm-unsafe-eval'" : "";
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${wasm} ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `connect-src 'self' ${list(csp.connectDomains)}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains) || "'self'"}`,
  ]
    .map((directive) => directive.replace(/\s+/g, " ").trim())
    .join("; ");
}

// A declared domain is an origin, perhaps with a `*.` subdomain wildcard:
// anything else (a keyword, a `;` that would start a new directive) is
// dropped rather than written into the policy.
function isSource(domain) {
  return typeof domain === "string" && /^(https?|wss?):\/\/(\*\.)?[a-z0-9.-]+(:\d+)?$/i.test(domain);
}

function listen(handler) {
  const server = createServer(handler);
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done(server));
  });
}

function origin(server) {
  return `http://127.0.0.1:${server.address().port}`;
}

function send(response, status, type, body, headers = {}) {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
  response.end(body);
}

// Relays a request to the server under test, streaming both ways (a
// response may be an event stream that stays open).
function relay(request, response) {
  const upstream = httpRequest(
    MCP_URL,
    { method: request.method, headers: { ...request.headers, host: MCP_URL.host } },
    (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on("error", (error) => {
    if (!response.headersSent) {
      send(response, 502, "text/plain", `The server under test is unreachable: ${error.message}\n`);
    } else {
      response.destroy();
    }
  });
  response.on("close", () => upstream.destroy());
  request.pipe(upstream);
}

async function main() {
  const bundle = await build({
    entryPoints: [join(HERE, "host.js")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "chrome120",
    logLevel: "warning",
  });
  const hostScript = bundle.outputFiles[0].text;
  const hostPage = await readFile(join(HERE, "host.html"), "utf8");
  const sandboxPage = await readFile(join(HERE, "sandbox.html"), "utf8");
  const sandboxScript = await readFile(join(HERE, "sandbox.js"), "utf8");

  let hostOrigin = "";
  const host = await listen((request, response) => {
    const path = new URL(request.url, "http://host").pathname;
    if (path === "/mcp") {
      relay(request, response);
    } else if (path === "/") {
      send(response, 200, "text/html; charset=utf-8", hostPage);
    } else if (path === "/host.js") {
      send(response, 200, "text/javascript; charset=utf-8", hostScript);
    } else {
      send(response, 404, "text/plain", "not found\n");
    }
  });
  hostOrigin = origin(host);
  const cspSeen = [];
  const sandbox = await listen((request, response) => {
    const url = new URL(request.url, "http://sandbox");
    if (url.pathname === "/sandbox.html") {
      let csp = {};
      try {
        csp = JSON.parse(url.searchParams.get("csp") ?? "{}") ?? {};
      } catch {
        send(response, 400, "text/plain", "csp is not JSON\n");
        return;
      }
      const policy = contentSecurityPolicy(csp);
      cspSeen.push(policy);
      const page = sandboxPage.replace("<html lang=\"en\">", `<html lang="en" data-host-origin="${hostOrigin}">`);
      send(response, 200, "text/html; charset=utf-8", page, { "content-security-policy": policy });
    } else if (url.pathname === "/sandbox.js") {
      send(response, 200, "text/javascript; charset=utf-8", sandboxScript);
    } else {
      send(response, 404, "text/plain", "not found\n");
    }
  });
  const sandboxUrl = `${origin(sandbox)}/sandbox.html`;

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    timeout: TIMEOUT_MS,
  });
  const problems = [];
  let page;
  try {
    page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
    page.setDefaultTimeout(TIMEOUT_MS);
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (process.env.APPS_BROWSER_VERBOSE) {
        console.log(`  [browser ${message.type()}] ${message.text()}`);
      }
      if (message.type() === "error" && !expectedError(message.text(), message.location().url)) {
        problems.push(`console error in ${message.location().url || "the page"}: ${message.text()}`);
      }
    });
    const seen = await scenario(page, hostOrigin, sandboxUrl, cspSeen);
    if (problems.length > 0) {
      throw new Error(`the browser reported errors:\n  ${problems.join("\n  ")}`);
    }
    await screenshot(page);
    console.log(`apps browser test (${options.name}, ${options.era}): passed: ${seen}; screenshot ${SCREENSHOT}`);
  } catch (error) {
    if (page) {
      await screenshot(page).catch(() => {});
      const log = await page.locator("#bridge-log").innerText().catch(() => "(none)");
      const status = await page.locator("#status").innerText().catch(() => "(none)");
      console.error(`host status: ${status}\nbridge log:\n${log}`);
    }
    for (const problem of problems) {
      console.error(problem);
    }
    console.error(`apps browser test (${options.name}, ${options.era}): FAILED: ${error.message}; screenshot ${SCREENSHOT}`);
    process.exitCode = 1;
  } finally {
    await browser.close();
    host.closeAllConnections();
    sandbox.closeAllConnections();
    host.close();
    sandbox.close();
  }
}

// The console errors that are not failures: the CSP refusing the View's
// probe (in `scenario`), and the browser's note on a `/mcp` answer that is not 2xx
// (such as the answer of a 2025-11-25 server to the SDK's `server/discover`
// probe, or a `405` to a GET stream). A failed MCP request fails the host,
// whose status the test reads.
function expectedError(text, url) {
  return (
    (text.includes("Content Security Policy") && text.includes("/csp-probe")) ||
    (text.startsWith("Failed to load resource") && new URL(url).pathname === "/mcp")
  );
}

async function screenshot(page) {
  await mkdir(OUT, { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
}

// The steps and checks. Returns what it saw, in one line.
async function scenario(page, hostOrigin, sandboxUrl, cspSeen) {
  const url = new URL(hostOrigin);
  url.searchParams.set("sandbox", sandboxUrl);
  url.searchParams.set("era", options.era);
  url.searchParams.set("arguments", options.arguments);
  if (options.tool) {
    url.searchParams.set("tool", options.tool);
  }
  await page.goto(url.href);

  // The host connected, rendered the View, and the View initialized.
  await page.waitForFunction(() => ["ready", "error"].includes(document.querySelector("#status").dataset.state));
  const status = await page.locator("#status").innerText();
  if (status !== "ready") {
    throw new Error(`the host page did not get ready: ${status}`);
  }
  const protocol = await page.locator("#protocol").innerText();
  const server = await page.locator("#server").innerText();

  // The View sits in the spec's two frames: the sandbox proxy on another
  // origin, and the View in an opaque origin inside it.
  const proxyFrame = page.locator("iframe#sandbox");
  expect(await proxyFrame.getAttribute("sandbox"), "allow-scripts allow-same-origin", "the sandbox proxy's sandbox");
  const proxySrc = new URL(await proxyFrame.getAttribute("src"));
  if (proxySrc.origin === hostOrigin) {
    throw new Error("the sandbox proxy runs on the host's origin");
  }
  const sandboxFrame = page.frameLocator("iframe#sandbox");
  const viewFrame = sandboxFrame.frameLocator("iframe#view");
  expect(await sandboxFrame.locator("iframe#view").getAttribute("sandbox"), "allow-scripts", "the View's sandbox");
  const view = await (await sandboxFrame.locator("iframe#view").elementHandle()).contentFrame();
  const isolation = await view.evaluate(async (hostOrigin) => {
    let top = "readable";
    try {
      void window.top.document.title;
    } catch {
      top = "blocked";
    }
    // `no-cors`, so that only the CSP can stop the request; the violation
    // event says the CSP did. It may come after the fetch fails; 5 s
    // bounds the wait for it.
    const violation = new Promise((resolve) => {
      document.addEventListener("securitypolicyviolation", (event) => resolve(event.effectiveDirective));
      setTimeout(() => resolve(null), 5000);
    });
    let fetched = "allowed";
    try {
      await fetch(`${hostOrigin}/csp-probe`, { mode: "no-cors" });
    } catch {
      const directive = await violation;
      fetched = directive ? `blocked by ${directive}` : "failed without a CSP violation";
    }
    return { origin: window.origin, top, fetched };
  }, hostOrigin);
  expect(isolation.origin, "null", "the View's origin");
  expect(isolation.top, "blocked", "the View's access to the host page");
  expect(isolation.fetched, "blocked by connect-src", "the View's fetch of the host's origin");

  // The host refuses the View's call of a tool it may not call: a tool
  // only the model may call, if the server has one, else one the server
  // lacks. The probe speaks the spec's postMessage JSON-RPC itself.
  const modelOnly = await page
    .locator("#tools li[data-app-callable='false']")
    .evaluateAll((items) => items[0]?.dataset.tool ?? null);
  const forbidden = modelOnly ?? "no-such-tool";
  const refusal = await view.evaluate(
    (name) =>
      new Promise((resolve) => {
        const id = "browser-test-probe";
        window.addEventListener("message", function answer(event) {
          if (event.data?.id === id) {
            window.removeEventListener("message", answer);
            resolve(event.data);
          }
        });
        window.parent.postMessage({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }, "*");
      }),
    forbidden,
  );
  if (!refusal.error || !String(refusal.error.message).includes("refuses")) {
    throw new Error(`the host did not refuse the View's tools/call ${forbidden}: ${JSON.stringify(refusal)}`);
  }
  await page.locator(`#bridge-log li[data-tool='${forbidden}'][data-outcome='refused']`).waitFor();

  // The View is up, and lists the jobs with `list_jobs`, a tool only apps
  // may call: the host relays it, and the model's list leaves it out.
  await viewFrame.locator("#status").filter({ hasText: /^ready$/ }).waitFor();
  await page.locator("#bridge-log li[data-tool='list_jobs'][data-outcome='ok']").first().waitFor();
  const modelTools = await page.locator("#tools li").evaluateAll((items) => items.map((item) => item.dataset.tool));
  if (modelTools.includes("list_jobs") || !modelTools.includes("build")) {
    throw new Error(`the model's tools are ${modelTools.join(", ")}: build without list_jobs is wanted`);
  }

  // The model's call: the server may ask the user to confirm it first. Its
  // result reaches the View, which then lists that build.
  const modelDone = page.locator(
    "#bridge-log li:is([data-method='ui/notifications/tool-result'], [data-method='ui/notifications/tool-cancelled'])",
  );
  const modelQuestions = await answerElicitations(page, modelDone);
  const modelOutcome = await modelDone.getAttribute("data-method");
  expect(modelOutcome, "ui/notifications/tool-result", "what the host sent the View for the model's call");
  const modelTarget = JSON.parse(options.arguments).target;
  await jobRow(viewFrame, modelTarget).waitFor();

  // The user builds another target from the app; the app calls `build`
  // through the host, and the user confirms it.
  const target = `web-${options.era}`;
  await viewFrame.locator("#target").fill(target);
  await viewFrame.locator("#start-build").click();
  await page
    .locator("#bridge-log li[data-method='tools/call'][data-tool='build'][data-direction='request']")
    .filter({ hasText: target })
    .waitFor();
  const relayed = page
    .locator("#bridge-log li[data-method='tools/call'][data-tool='build'][data-outcome]")
    .filter({ hasText: `built ${target}` })
    .or(page.locator("#bridge-log li[data-method='tools/call'][data-tool='build'][data-outcome]:not([data-outcome='ok'])"));
  const questions = await answerElicitations(page, relayed);
  const outcome = await relayed.first().getAttribute("data-outcome");
  expect(outcome, "ok", "the outcome of the app's tools/call build");

  // The app shows the server's answer, and lists the new build once.
  await viewFrame.locator("#last-result").filter({ hasText: `built ${target}` }).waitFor();
  const row = jobRow(viewFrame, target);
  await row.waitFor();
  const rows = await viewFrame.locator("#jobs > li").count();
  const rowText = (await row.innerText()).replace(/\s+/g, " ").trim();
  const jobId = await row.getAttribute("data-job-id");
  const policy = cspSeen.at(-1) ?? "";
  const confirmed = (list) => (list.length ? ` after the user confirmed "${list.join('", "')}"` : "");
  return (
    `${server} over ${protocol}; the View ran in an opaque origin inside a sandbox proxy on another origin ` +
    `(host page unreachable; fetch blocked by "${policy.split("; ").find((d) => d.startsWith("connect-src"))}"); ` +
    `the host refused its tools/call ${forbidden}; the model sees ${modelTools.join(", ")} and not the app's list_jobs; ` +
    `the model's build ${modelTarget} reached the View` +
    `${confirmed(modelQuestions)}; a click on #start-build went through the bridge as tools/call build ` +
    `(${outcome}${confirmed(questions)}), and the app lists ${rows} build(s), ` +
    `the new one "${rowText}" (data-job-id ${jobId})`
  );
}

// The row of the app's job list that shows `target` built, exactly once.
function jobRow(viewFrame, target) {
  return viewFrame.locator(`#jobs > li[data-job-id][data-status='built']:has(> .target:text-is("${target}"))`);
}

// Accepts each elicitation the server sends, ticking its boolean fields,
// until `done` shows. Returns the questions it answered.
async function answerElicitations(page, done) {
  const form = page.locator("#elicitation:not([hidden])");
  const questions = [];
  for (;;) {
    await form.or(done).first().waitFor();
    if (await done.count()) {
      return questions;
    }
    questions.push(await page.locator("#elicitation-message").innerText());
    for (const box of await form.locator("input[type='checkbox']").all()) {
      await box.check();
    }
    await page.locator("#elicitation-accept").click();
    await form.waitFor({ state: "hidden" });
  }
}

function expect(actual, wanted, what) {
  if (actual !== wanted) {
    throw new Error(`${what} is ${JSON.stringify(actual)}, not ${JSON.stringify(wanted)}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
