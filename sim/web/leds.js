// The LEDs under the places and the status LEDs, in the colours a screen shows them; and while
// the LED menu is open, what each of its lit squares means.

import { CELL_OFF, SLOT_OFF, $, svg, state, el } from "./page.js";

const GAMMA = 0.4; // LEDs run dim: lift their colours for a screen, hue kept

function screenColour(hex) {
  // What an LED looks like to the eye, for a screen: its colour with a gamma lift.
  const value = parseInt(hex, 16);
  const lift = (c) => Math.round(255 * Math.pow(c / 255, GAMMA));
  const r = lift((value >> 16) & 255);
  const g = lift((value >> 8) & 255);
  const b = lift(value & 255);
  return `rgb(${r}, ${g}, ${b})`;
}

function ledAt(index) {
  if (index === undefined || index === null) return "000000";
  const hex = state.pixels.substr(index * 6, 6);
  return hex.length === 6 ? hex : "000000";
}

export function drawLeds() {
  for (const place of state.places.values()) {
    const hex = ledAt(place.led);
    place.group.dataset.led = hex;
    const dark = place.kind === "cell" ? CELL_OFF : SLOT_OFF;
    const colour = hex === "000000" ? dark : screenColour(hex);
    place.surface.setAttribute("fill", colour);
    place.group.style.color = colour; // a printed picture's cut-outs

  }
  for (const status of state.status) {
    const hex = ledAt(status.led);
    status.group.dataset.led = hex;
    status.circle.setAttribute("fill", hex === "000000" ? "#23262b" : screenColour(hex));
  }
}

export function drawMenu() {
  // While the LED menu is open, what each of its lit squares means, on the square.
  const layer = $("menu-squares");
  if (!layer) return;
  layer.replaceChildren();
  svg.classList.toggle("menu-open", state.menu.length > 0);
  for (const square of state.menu) {
    const place = state.places.get(square.place);
    if (!place || place.shown === false) continue;
    const group = el("g", {
      class: "menu-square",
      "data-menu": square.place,
      "data-label": square.label,
      transform: `translate(${place.x} ${place.y})`,
    }, layer);
    group.classList.toggle("at", square.at);
    group.classList.toggle("chosen", square.chosen);
    el("rect", { class: "menu-plate", x: 4, y: place.h - 52, width: place.w - 8, height: 48, rx: 6 }, group);
    const words = menuWords(square.label);
    words.forEach((line, i) => {
      const text = el("text", { class: "menu-label", x: place.w / 2, y: place.h - 36 + i * 17 }, group);
      text.textContent = line;
    });
    const title = el("title", {}, group);
    title.textContent = `menu: ${square.label}${square.at ? " (pointed at)" : ""}`;
  }
}

function menuWords(label) {
  // A menu square's meaning in two short lines: "brightness 0.25" -> "brightness", "0.25";
  // "two-in-a-row" -> "two-in-a-", "row". The square's title has it whole.
  const short = (text) => (text.length > 11 ? `${text.slice(0, 10)}\u2026` : text);
  const words = label.replace(/_/g, " ").split(" ");
  if (words.length === 1) {
    const cut = label.lastIndexOf("-");
    return cut > 0 ? [short(label.slice(0, cut + 1)), short(label.slice(cut + 1))] : [short(label)];
  }
  const last = words.pop();
  return [short(words.join(" ")), short(last)];
}
