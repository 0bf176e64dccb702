// The pieces: stacks on the places, one of a kind in each box, and the pieces in the hand.

import { SVG, BOX, $, svg, state, el } from "./page.js";
import { drawTiles } from "./tiles.js";

export const radius = (size, unit) => unit * (0.22 + 0.07 * Math.min(3, Math.max(1, size)));

export function inkOn(colour) {
  const value = parseInt(colour.slice(1), 16);
  const luma = 0.299 * ((value >> 16) & 255) + 0.587 * ((value >> 8) & 255) + 0.114 * (value & 255);
  return luma > 150 ? "#111" : "#fff";
}

function darker(colour) {
  const value = parseInt(colour.slice(1), 16);
  const d = (c) => Math.round(c * 0.55);
  return `rgb(${d((value >> 16) & 255)}, ${d((value >> 8) & 255)}, ${d(value & 255)})`;
}

function drawStack(parent, stack, w, h) {
  // The top piece drawn whole; what it covers as rings around it, so a stack shows what is in
  // it; and a count when there is more than one.
  parent.replaceChildren();
  if (!stack.length) return;
  const unit = Math.min(w, h);
  const cx = w / 2;
  const cy = h / 2;
  const topPiece = stack[stack.length - 1];
  const r = radius(topPiece.size, unit);
  const group = el("g", {
    class: "stack",
    "data-count": stack.length,
    "data-top": topPiece.kind,
    "data-ids": stack.map((p) => p.id).join(" "),
  }, parent);
  for (let depth = 1; depth < stack.length; depth++) {
    const piece = stack[stack.length - 1 - depth];
    el("circle", {
      class: "piece-ring",
      cx,
      cy,
      r: Math.max(r, radius(piece.size, unit)) + unit * 0.035 * depth,
      stroke: piece.colour,
      "stroke-width": unit * 0.03,
    }, group);
  }
  drawPiece(group, topPiece, cx, cy, r, unit);
  if (stack.length > 1) {
    const bx = cx + r * 0.85;
    const by = cy - r * 0.85;
    el("circle", { class: "piece-badge", cx: bx, cy: by, r: unit * 0.12 }, group);
    const count = el("text", { class: "piece-count", x: bx, y: by, "font-size": unit * 0.15 }, group);
    count.textContent = String(stack.length);
  }
}

export function drawPiece(parent, piece, cx, cy, r, unit) {
  el("circle", {
    class: "piece-body",
    cx,
    cy,
    r,
    fill: piece.colour,
    stroke: darker(piece.colour),
    "data-piece": piece.id,
  }, parent);
  if (piece.label) {
    const text = el("text", {
      class: "piece-label",
      x: cx,
      y: cy,
      fill: inkOn(piece.colour),
      "font-size": Math.max(10, unit * (0.16 + 0.05 * piece.size)),
    }, parent);
    text.textContent = piece.label;
  }
}

export function stackAt(label) {
  return state.pieces.places[label] || [];
}

export function drawPieces() {
  for (const place of state.places.values()) {
    const stack = stackAt(place.label);
    if (place.kind === "box") {
      // A box's pieces are all alike: one drawn, and how many there are.
      drawStack(place.pieces, stack.slice(-1), place.w, place.h);
      place.caption.textContent = `box ${place.label.slice(BOX.length)}: ${stack.length}`;
    } else {
      drawStack(place.pieces, stack, place.w, place.h);
    }
  }
  drawTiles();
  drawHand();
}

function drawHand() {
  const hand = state.pieces.hand || [];
  const box = $("hand-pieces");
  box.replaceChildren();
  svg.classList.toggle("holding", hand.length > 0);
  if (!hand.length) {
    box.textContent = "nothing";
    return;
  }
  hand.forEach((piece, i) => {
    const small = document.createElementNS(SVG, "svg");
    small.setAttribute("viewBox", "0 0 40 40");
    small.dataset.piece = piece.id;
    if (i === hand.length - 1) {
      small.classList.add("next");
      small.setAttribute("aria-label", `${piece.kind}: put down next`);
    }
    drawPiece(small, piece, 20, 20, radius(piece.size, 40), 40);
    box.appendChild(small);
  });
}
