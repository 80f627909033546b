// The sandbox proxy of the MCP Apps spec ("Sandbox proxy"): the outer
// iframe that a web host puts between itself and a View.
//
// 1. It runs on an origin other than the host's (the test serves it on a
//    port of its own), with `allow-scripts allow-same-origin`.
// 2. Its page is served with the Content-Security-Policy that the host built
//    from the UI resource's `_meta.ui.csp`. The View's iframe is a srcdoc
//    document, which inherits that policy: the View cannot loosen it.
// 3. The View's iframe has `sandbox="allow-scripts"` only, so the View runs
//    in an opaque origin: it cannot reach this page, the host, or their
//    storage, and talks to the host only through postMessage.
// 4. It says `ui/notifications/sandbox-proxy-ready` to the host, takes the
//    View's HTML from `ui/notifications/sandbox-resource-ready`, and relays
//    every other message both ways. `ui/notifications/sandbox-*` messages
//    are never relayed.
// 5. It accepts messages from the host's origin only (the server that
//    serves this page writes it into `data-host-origin`), and sends to
//    that origin only.
"use strict";

const HOST_ORIGIN = document.documentElement.dataset.hostOrigin;
const SANDBOX_PREFIX = "ui/notifications/sandbox-";

if (window.parent === window) {
  throw new Error("The sandbox proxy runs only inside a host's iframe.");
}
if (!HOST_ORIGIN || HOST_ORIGIN === window.location.origin) {
  throw new Error("The sandbox proxy needs a host on another origin.");
}

let view = null;

function isSandboxMessage(data) {
  return typeof data?.method === "string" && data.method.startsWith(SANDBOX_PREFIX);
}

// The Permission Policy features that the resource's `_meta.ui.permissions`
// asks for, as the View iframe's `allow` attribute.
function allowAttribute(permissions) {
  const features = {
    camera: "camera",
    microphone: "microphone",
    geolocation: "geolocation",
    clipboardWrite: "clipboard-write",
  };
  return Object.entries(features)
    .filter(([key]) => permissions && permissions[key])
    .map(([, feature]) => feature)
    .join("; ");
}

function loadView(params) {
  if (view) {
    throw new Error("The sandbox proxy already holds a View.");
  }
  if (typeof params?.html !== "string") {
    throw new Error("sandbox-resource-ready carries no HTML.");
  }
  view = document.createElement("iframe");
  view.id = "view";
  view.title = "MCP App";
  view.setAttribute("sandbox", "allow-scripts");
  const allow = allowAttribute(params.permissions);
  if (allow) {
    view.setAttribute("allow", allow);
  }
  view.srcdoc = params.html;
  document.body.appendChild(view);
}

window.addEventListener("message", (event) => {
  if (event.source === window.parent) {
    if (event.origin !== HOST_ORIGIN) {
      console.error(`sandbox proxy: dropped a message from ${event.origin}, not the host`);
      return;
    }
    if (event.data?.method === "ui/notifications/sandbox-resource-ready") {
      loadView(event.data.params);
    } else if (!isSandboxMessage(event.data) && view) {
      // The View's origin is opaque, so no narrower target can be named.
      view.contentWindow.postMessage(event.data, "*");
    }
  } else if (view && event.source === view.contentWindow) {
    if (!isSandboxMessage(event.data)) {
      window.parent.postMessage(event.data, HOST_ORIGIN);
    }
  }
});

window.parent.postMessage(
  { jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} },
  HOST_ORIGIN,
);
