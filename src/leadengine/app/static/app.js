// The workspace's only script (the Content-Security-Policy allows no inline script).
"use strict";

function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text);
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "offscreen";
  document.body.appendChild(area);
  area.select();
  try {
    document.execCommand("copy");
  } finally {
    document.body.removeChild(area);
  }
  return Promise.resolve();
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.addEventListener("click", () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      copyText(source.textContent.trim()).then(
        () => { button.textContent = "Copied"; },
        () => { button.textContent = "Copy failed"; });
      setTimeout(() => { button.textContent = "Copy"; }, 2000);
    });
  }
  watchBatch(document.getElementById("progress"));
});

// A batch's page: its counters follow the server's events until the batch ends.
function watchBatch(panel) {
  if (!panel || panel.dataset.final === "yes" || !window.EventSource) return;
  const source = new EventSource(panel.dataset.events);
  const set = (id, value) => {
    const node = document.getElementById(id);
    if (node) node.textContent = value;
  };
  const show = (job) => {
    const p = job.progress;
    set("state", job.state);
    document.getElementById("state").className = "status state-" + job.state;
    set("handled", p.handled);
    set("total", p.total);
    set("done", p.done);
    set("failed", p.failed);
    set("skipped", p.skipped + p.duplicates + p.elsewhere);
    set("rate", p.rate);
    set("eta", p.eta_seconds === null ? "…" : p.eta_seconds + " s");
    set("cost", Number(p.cost_usd).toFixed(4));
    set("job-error", job.error);
    const bar = document.getElementById("bar");
    bar.max = Math.max(1, p.total);
    bar.value = p.handled;
    if (job.run_id) {
      set("run-id", job.run_id);
      document.getElementById("run-link").href = "/?run=" + job.run_id;
      document.getElementById("see-leads").href = "/?run=" + job.run_id;
    }
  };
  source.addEventListener("progress", (event) => show(JSON.parse(event.data)));
  source.addEventListener("end", (event) => {
    source.close();
    const job = JSON.parse(event.data);
    show(job);
    panel.dataset.final = "yes";
    // The failures table and the retry button come from the server: reload once.
    window.location.reload();
  });
}
