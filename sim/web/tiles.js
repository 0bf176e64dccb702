// Grid tiles: drawn over the cells they carry, picked by a press, turned by the buttons.

import { $, state, el, gameSquare } from "./page.js";
import { send } from "./send.js";

const RIM = 22; // drawing units along a tile's edge where a press takes hold of the tile
const KEY_MARK = 30; // the side of the notch marking a tile's key corner

export const tileById = (id) => state.tiles.find((tile) => tile.id === id) || null;
// A tile as players name it: by the game's square under its lower-left cell.
const tileName = (tile) => `the tile at ${gameSquare(tile.cells[0])}`;

export function tileBox(tile) {
  // The square a tile covers in drawing units: its cells and the gaps round them.
  const cells = tile.cells.map((label) => state.places.get(label));
  if (cells.some((cell) => !cell)) return null;
  const x = Math.min(...cells.map((c) => c.x)) - 3;
  const y = Math.min(...cells.map((c) => c.y)) - 3;
  const w = Math.max(...cells.map((c) => c.x + c.w)) + 3 - x;
  const h = Math.max(...cells.map((c) => c.y + c.h)) + 3 - y;
  return { x, y, w, h, cx: x + w / 2, cy: y + h / 2 };
}

function keyNotch(tile, box) {
  // A small triangle in the tile's corner over its key magnet: which way round it lies.
  const key = tile.key && state.places.get(tile.key);
  if (!key) return null;
  const right = key.x + key.w / 2 > box.cx;
  const below = key.y + key.h / 2 > box.cy;
  const x = right ? box.x + box.w : box.x;
  const y = below ? box.y + box.h : box.y;
  const sx = right ? -KEY_MARK : KEY_MARK;
  const sy = below ? -KEY_MARK : KEY_MARK;
  return `M ${x} ${y} L ${x + sx} ${y} L ${x} ${y + sy} Z`;
}

export function drawTileShape(parent, tile, box) {
  el("rect", { class: "tile-outline", x: box.x, y: box.y, width: box.w, height: box.h, rx: 12 }, parent);
  const notch = keyNotch(tile, box);
  if (notch) el("path", { class: "tile-key", d: notch }, parent);
}

export function drawTiles() {
  const plates = $("tile-plates");
  const layer = $("tiles");
  if (!plates || !layer) return;
  plates.replaceChildren();
  layer.replaceChildren();
  if (!tileById(state.picked)) state.picked = null;
  for (const tile of state.tiles) {
    const box = tileBox(tile);
    if (!box) continue;
    el("rect", { class: "tile-plate", x: box.x, y: box.y, width: box.w, height: box.h, rx: 12 }, plates);
    const group = el("g", {
      class: "tile",
      "data-tile": tile.id,
      "data-cells": tile.cells.join(" "),
      "data-key": tile.key || "",
    }, layer);
    group.classList.toggle("picked", tile.id === state.picked);
    group.classList.toggle("hover", tile.id === state.hoverTile);
    drawTileShape(group, tile, box);
  }
  drawTileControls();
}

function drawTileControls() {
  const any = state.tiles.length > 0;
  $("tile-controls").hidden = !any;
  $("tile-mode").hidden = !any;
  $("tile-help").hidden = !any;
  const tile = tileById(state.picked);
  $("tile-name").textContent = tile ? tileName(tile) : "none picked";
  $("turn-cw").disabled = !tile;
  $("turn-ccw").disabled = !tile;
}

export function pickTile(tile) {
  state.picked = tile ? tile.id : null;
  for (const node of document.querySelectorAll("#tiles [data-tile]")) {
    node.classList.toggle("picked", Number(node.dataset.tile) === state.picked);
  }
  drawTileControls();
}

export function hoverTile(tile) {
  state.hoverTile = tile ? tile.id : null;
  for (const node of document.querySelectorAll("#tiles [data-tile]")) {
    node.classList.toggle("hover", Number(node.dataset.tile) === state.hoverTile);
  }
}

export function tileAt(point) {
  for (const tile of state.tiles) {
    const box = tileBox(tile);
    if (box && point.x >= box.x && point.x <= box.x + box.w && point.y >= box.y && point.y <= box.y + box.h) {
      return tile;
    }
  }
  return null;
}

export function onRim(tile, point) {
  const box = tileBox(tile);
  if (!box) return false;
  const inside = Math.min(point.x - box.x, box.x + box.w - point.x, point.y - box.y, box.y + box.h - point.y);
  return inside >= 0 && inside <= RIM;
}

export function turnTile(tile, clockwise) {
  send({ do: "turn-tile", args: [tile.cells[0], clockwise ? "cw" : "ccw"] });
}
