// What a game that keeps score shows beside the board (sim-scores): each seat's score and
// inventory, who holds each cell; the legend of the printed pictures; the choices the rules wait
// for, as buttons.

import { $, state, el, nameOf } from "./page.js";
import { send } from "./send.js";
import { pictureIcon } from "./pictures.js";
import { inkOn } from "./pieces.js";

export function drawScores() {
  // Every seat in its colour, with its icons by type and its running score (the final one
  // once the game is over).
  const panel = $("scores-panel");
  const scores = state.scores;
  panel.hidden = !scores;
  if (!scores) return;
  const colours = (state.board && state.board.seat_colours) || [];
  const rows = scores.scores.map((score, seat) => {
    const item = document.createElement("li");
    item.className = "seat";
    item.dataset.seat = String(seat);
    if (state.winners && state.winners.includes(seat)) item.classList.add("winner");
    const swatch = document.createElement("span");
    swatch.className = "seat-swatch";
    if (colours[seat]) swatch.style.backgroundColor = colours[seat];
    const name = document.createElement("span");
    name.className = "seat-name";
    name.textContent = nameOf(seat);
    const value = document.createElement("span");
    value.className = "seat-score";
    value.textContent = String(score);
    const held = document.createElement("span");
    held.className = "inventory";
    const inventory = scores.inventories[seat] || {};
    for (const [type, count] of Object.entries(inventory)) {
      const icon = document.createElement("span");
      icon.className = "held";
      icon.dataset.type = type;
      icon.dataset.count = String(count);
      icon.appendChild(pictureIcon(type, `${type}: ${count}`));
      const times = document.createElement("span");
      times.className = "held-count";
      times.textContent = `\u00d7${count}`;
      icon.appendChild(times);
      held.appendChild(icon);
    }
    if (!held.children.length) held.textContent = "nothing yet";
    item.append(swatch, name, value, held);
    return item;
  });
  $("scores").replaceChildren(...rows);
}

export function drawHolders() {
  // Who holds each cell taken, where the pieces do not say: the holder's colour round the cell
  // and their name in its corner, as sim-scores says.
  for (const place of state.places.values()) {
    if (place.holder) {
      place.holder.remove();
      place.holder = null;
      delete place.group.dataset.holder;
    }
  }
  const holders = (state.scores && state.scores.holders) || [];
  const colours = (state.board && state.board.seat_colours) || [];
  for (const { place: label, seat } of holders) {
    const place = state.places.get(label);
    if (!place) continue;
    const colour = colours[seat] || "#ffffff";
    const group = el("g", { class: "holder", "data-seat": seat }, place.group);
    el("rect", { class: "holder-ring", x: 2, y: 2, width: place.w - 4, height: place.h - 4, rx: 8, stroke: colour }, group);
    el("circle", { class: "holder-badge", cx: place.w - 17, cy: 17, r: 14, fill: colour }, group);
    const name = el("text", { class: "holder-name", x: place.w - 17, y: 17, fill: inkOn(colour) }, group);
    name.textContent = nameOf(seat);
    const title = el("title", {}, group);
    title.textContent = `collected by ${nameOf(seat)}`;
    place.group.dataset.holder = String(seat);
    place.holder = group;
  }
}

export function drawLegend() {
  // Each picture of the game's overlay with its name: what the squares are.
  const panel = $("legend-panel");
  panel.hidden = !state.pictures.size;
  $("legend").replaceChildren(...[...state.pictures.keys()].map((name) => {
    const item = document.createElement("li");
    item.className = "legend-item";
    item.dataset.picture = name;
    const caption = document.createElement("span");
    caption.textContent = name;
    item.append(pictureIcon(name), caption);
    return item;
  }));
}

function pictureNamed(option) {
  // The picture an option ends in, as an icon to lose or gain does ("A-Police"): the longest
  // name, should one end another.
  const names = [...state.pictures.keys()].filter((name) => option.endsWith(name) && name.length < option.length);
  return names.sort((a, b) => b.length - a.length)[0];
}

export function drawChoice() {
  // The options of the choice the rules wait for, as buttons; the one the seat button points
  // at is marked. A click chooses it.
  const choice = state.choice;
  $("choice").hidden = !choice;
  if (!choice) return;
  $("choice-prompt").textContent = `${nameOf(choice.player)} to choose:`;
  const said = (choice.words && choice.words.choices) || [];
  const buttons = choice.options.map((option, i) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "choice-option";
    button.dataset.option = option;
    if (i === choice.current) button.classList.add("current");
    button.title = option;
    const picture = pictureNamed(option);
    if (picture) button.appendChild(pictureIcon(picture));
    button.append(said[i] || option);
    button.addEventListener("click", () => send({ do: "choose", args: [option] }));
    return button;
  });
  $("choice-options").replaceChildren(...buttons);
}
