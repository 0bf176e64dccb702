// The event log: a line for each event the server words, newest first.

import { $ } from "./page.js";

const LOG_LIMIT = 300;

export function addLog(event) {
  // The line the server's words give it; an event with none is not for the log.
  const words = event.words;
  if (!words || !words.line) return;
  const item = document.createElement("li");
  item.className = `ev ev-${event.type}`;
  item.dataset.type = event.type;
  const time = document.createElement("span");
  time.className = "t";
  time.textContent = typeof event.t === "number" ? event.t.toFixed(2) : "";
  item.append(time, words.line);
  if (words.detail) {
    const detail = document.createElement("span");
    detail.className = "detail";
    detail.textContent = words.detail;
    item.append(" ", detail);
  }
  const log = $("log");
  log.prepend(item);
  while (log.children.length > LOG_LIMIT) log.lastChild.remove();
}

$("clear-log").addEventListener("click", () => $("log").replaceChildren());
