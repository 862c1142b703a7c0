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
  // History times: epoch seconds -> the reader's local date and time.
  for (const node of document.querySelectorAll("time[data-epoch]")) {
    const when = new Date(parseFloat(node.dataset.epoch) * 1000);
    node.textContent = when.toLocaleString();
    node.setAttribute("datetime", when.toISOString());
  }
});
