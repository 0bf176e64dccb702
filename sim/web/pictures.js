// The pictures a game prints on its board (sim-board's `overlay`), drawn from their shapes.

import { SVG, state, el } from "./page.js";

export function drawPicture(parent, name, x, y, size) {
  // One of the overlay's pictures, from its shapes in a 100-unit box: "ink" and "paper"
  // (the cut-outs) take their colours from CSS, where it is drawn. Named, for a pointer's
  // tooltip and a screen reader.
  const drawing = state.pictures.get(name) || [];
  const group = el("g", {
    class: "picture",
    "data-picture": name,
    role: "img",
    "aria-label": name,
    transform: `translate(${x} ${y}) scale(${size / 100})`,
  }, parent);
  const title = el("title", {}, group);
  title.textContent = name;
  for (const shape of drawing) {
    el("path", {
      d: shape.d,
      class: `fill-${shape.fill || "none"} stroke-${shape.stroke || "none"}`,
      "stroke-width": shape.width,
    }, group);
  }
  return group;
}

export function pictureIcon(name, title) {
  // A picture on its own, for the panels.
  const small = document.createElementNS(SVG, "svg");
  small.setAttribute("viewBox", "0 0 100 100");
  small.classList.add("picture-icon");
  small.setAttribute("role", "img");
  small.setAttribute("aria-label", title || name);
  const label = el("title", {}, small);
  label.textContent = title || name;
  drawPicture(small, name, 0, 0, 100);
  return small;
}
