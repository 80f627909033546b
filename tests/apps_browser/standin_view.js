// The stand-in server's View, on the official view library (`App` of
// @modelcontextprotocol/ext-apps), with the jobs dashboard's elements:
// #status, #target, #start-build, #last-result, and #jobs, whose items
// carry data-job-id and data-status, and show the target in `.target`.
import { App } from "@modelcontextprotocol/ext-apps";

const $ = (id) => document.getElementById(id);
const app = new App({ name: "standin-dashboard", version: "1.0.0" });

function text(result) {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function refresh() {
  const result = await app.callServerTool({ name: "list_jobs", arguments: {} });
  $("jobs").replaceChildren(
    ...result.structuredContent.jobs.map((job) => {
      const item = document.createElement("li");
      item.dataset.jobId = job.id;
      item.dataset.status = job.status;
      const target = document.createElement("span");
      target.className = "target";
      target.textContent = job.target;
      const status = document.createElement("span");
      status.className = "status";
      status.textContent = ` ${job.status}`;
      item.append(target, status);
      return item;
    }),
  );
}

app.ontoolresult = () => refresh();
// A click, not a form's submission: a View sandboxed without
// `allow-forms` cannot submit a form.
$("start-build").addEventListener("click", async () => {
  const result = await app.callServerTool({ name: "build", arguments: { target: $("target").value } });
  $("last-result").textContent = text(result);
  await refresh();
});
await app.connect();
await refresh();
$("status").textContent = "ready";
