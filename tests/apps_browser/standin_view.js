// The stand-in server's View: a one-button jobs list on the official
// view library (`App` of @modelcontextprotocol/ext-apps).
import { App } from "@modelcontextprotocol/ext-apps";

const app = new App({ name: "standin-dashboard", version: "1.0.0" });
const jobs = document.querySelector("#jobs");
let next = 1;

function addJob(result) {
  const row = document.createElement("li");
  row.dataset.taskId = `job-${next++}`;
  const text = result.content?.find((c) => c.type === "text")?.text ?? "";
  row.dataset.status = result.isError ? "failed" : "completed";
  row.textContent = `${row.dataset.status}: ${text}`;
  jobs.appendChild(row);
}

app.ontoolresult = addJob;
document.querySelector("#start-build").addEventListener("click", async () => {
  addJob(await app.callServerTool({ name: "build", arguments: { target: "web" } }));
});
await app.connect();
