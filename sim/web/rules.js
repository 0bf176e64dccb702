// The game's rules and the legend of the lights (`/rules/...`), from their Markdown.

import { $, state } from "./page.js";

function inline(parent, text) {
  // **bold**, *emphasis* and `code` in a line of Markdown, as text nodes: nothing it says
  // becomes markup.
  const parts = text.split(/(\*\*[^*]+\*\*|`[^`]+`|\*[^*]+\*)/);
  for (const part of parts) {
    if (!part) continue;
    let node;
    if (part.startsWith("**") && part.length > 4) {
      node = document.createElement("strong");
      node.textContent = part.slice(2, -2);
    } else if (part.startsWith("`")) {
      node = document.createElement("code");
      node.textContent = part.slice(1, -1);
    } else if (part.startsWith("*") && part.length > 2) {
      node = document.createElement("em");
      node.textContent = part.slice(1, -1);
    } else {
      node = document.createTextNode(part.replace(/\[([^\]]+)\]\([^)]*\)/g, "$1"));
    }
    parent.appendChild(node);
  }
}

function markdown(text) {
  // Headings, lists, tables and paragraphs: enough for the rules and the legend.
  const out = document.createDocumentFragment();
  let list = null;
  let paragraph = null;
  let table = null;
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*(?:[-*+]|\d+\.)\s+(.*)$/.exec(line);
    if (/^\s*\|?\s*:?-{3,}/.test(line)) continue; // a table's rule under its head
    if (!line.trim().startsWith("|")) table = null;
    if (!line.trim()) {
      list = paragraph = null;
    } else if (heading) {
      list = paragraph = null;
      const node = document.createElement(`h${Math.min(6, heading[1].length + 2)}`);
      inline(node, heading[2]);
      out.appendChild(node);
    } else if (item) {
      paragraph = null;
      if (!list) {
        list = document.createElement("ul");
        out.appendChild(list);
      }
      const node = document.createElement("li");
      inline(node, item[1]);
      list.appendChild(node);
    } else if (line.trim().startsWith("|")) {
      list = paragraph = null;
      const cells = line.trim().replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim());
      if (!table) {
        table = document.createElement("table");
        out.appendChild(table);
      }
      const row = document.createElement("tr");
      for (const cell of cells) {
        const node = document.createElement(table.rows.length ? "td" : "th");
        inline(node, cell);
        row.appendChild(node);
      }
      table.appendChild(row);
      continue;
    } else if (paragraph) {
      paragraph.append(" ");
      inline(paragraph, line.trim());
    } else if (list && /^\s+/.test(raw)) {
      list.lastChild.append(" ");
      inline(list.lastChild, line.trim());
    } else {
      list = null;
      paragraph = document.createElement("p");
      inline(paragraph, line.trim());
      out.appendChild(paragraph);
    }
  }
  return out;
}

async function showText(id, url, missing) {
  const box = $(id);
  try {
    const answer = await fetch(url);
    if (!answer.ok) throw new Error(String(answer.status));
    box.replaceChildren(markdown(await answer.text()));
    box.dataset.loaded = "yes";
  } catch (error) {
    box.textContent = missing;
    box.dataset.loaded = "no";
  }
}

export function showRules() {
  const game = state.board.game;
  if (state.rulesFor === game) return;
  state.rulesFor = game;
  showText("rules", `/rules/${encodeURIComponent(game)}`, `No rules of ${game} to show yet.`);
  if (!$("lights").dataset.loaded) showText("lights", "/rules/lights", "");
}
