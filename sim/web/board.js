// The board laid out: the lattice's cells (the game's area, or the whole board), the trays
// round it, the status LEDs and the boxes of pieces no sensor sees, each a place to draw on.

import { CELL, CELL_OFF, SLOT_OFF, $, svg, state, el, cellLabel, gameOrigin, parseCell } from "./page.js";
import { drawPicture } from "./pictures.js";
import { drawMenu } from "./leds.js";
import { drawTiles } from "./tiles.js";
import { drawHolders } from "./scores.js";

const GAP = 36; // between the lattice and a tray
const MARGIN = 34; // room for the row and column names

function trayBox(tray, vertical, height, width) {
  // A tray beside the lattice drawn: each of its rows is a column of slots (a row of slots
  // above or below it), the slot size chosen so the longest row spans the lattice's side, or
  // more than the side of a small game's area, so its slots stay large enough to hit.
  const longest = Math.max(...tray.rows);
  const span = Math.max(vertical ? height : width, longest * CELL * 0.6);
  const slot = Math.min(CELL * 0.8, span / longest);
  const across = tray.rows.length * slot;
  return { tray, slot, across, along: longest * slot };
}

function menuPlaces() {
  return new Set(state.menu.map((square) => square.place));
}

function shownCells() {
  // The lattice's columns and rows drawn: the game's area and the LED menu's squares while
  // it is open, or every cell where the whole board is asked for (for a tester of the
  // hardware).
  const b = state.board;
  const whole = { c0: 0, c1: b.columns - 1, r0: 0, r1: b.rows - 1, whole: true };
  if (state.whole) return whole;
  const cells = [...b.area, ...menuPlaces()].map(parseCell).filter(Boolean);
  if (!cells.length) return whole;
  const cols = cells.map((c) => c.col);
  const rows = cells.map((c) => c.row);
  return { c0: Math.min(...cols), c1: Math.max(...cols), r0: Math.min(...rows), r1: Math.max(...rows), whole: false };
}

function seatPlays(name) {
  // A seat's status LED and button belong to the page only where the game seats it.
  const seat = /^seat-(\d+)$/.exec(name);
  return !seat || Number(seat[1]) <= Math.max(1, state.board.players.length);
}

export function buildBoard() {
  const b = state.board;
  $("board-title").textContent = `${b.title} \u00b7 ${b.game}`;
  state.places.clear();
  state.cells.clear();
  state.status = [];
  svg.replaceChildren();

  const view = shownCells();
  state.view = view;
  // The game's own names round its area (a1 at its lower-left corner); the lattice's round
  // the whole board or the menu.
  const gameNames = !view.whole && !state.menu.length;
  const origin = gameOrigin();
  const width = (view.c1 - view.c0 + 1) * CELL;
  const height = (view.r1 - view.r0 + 1) * CELL;
  const gameTrays = b.game_trays || b.trays.map((tray) => tray.name);
  const used = (tray) => state.whole || gameTrays.includes(tray.name);
  const sides = { left: [], right: [], top: [], bottom: [] };
  for (const tray of b.trays.filter(used)) {
    const side = sides[tray.side] ? tray.side : "right";
    sides[side].push(trayBox(tray, side === "left" || side === "right", height, width));
  }
  const sum = (boxes) => boxes.reduce((total, box) => total + box.across + GAP, 0);
  const left = MARGIN + sum(sides.left);
  const top = 48 + sum(sides.top);
  const right = sum(sides.right);
  const bottom = sum(sides.bottom);
  // A big lattice is drawn small: keep its names and status LEDs readable.
  const scale = Math.max(1, Math.min(2, (left + width + right + 20) / 1100));
  svg.style.setProperty("--text-scale", String(scale));
  // What is drawn, in drawing units: the view box frames it.
  const frame = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  const grow = (x, y, w, h) => {
    frame.x0 = Math.min(frame.x0, x);
    frame.y0 = Math.min(frame.y0, y);
    frame.x1 = Math.max(frame.x1, x + w);
    frame.y1 = Math.max(frame.y1, y + h);
  };

  const area = new Set(b.area);
  const holes = new Set(b.holes);
  const lattice = el("g", { class: "lattice" }, svg);
  el("rect", { x: left - 8, y: top - 8, width: width + 16, height: height + 16, rx: 10, fill: "#30343b" }, lattice);
  grow(left - 8, top - 8, width + 16, height + 16);
  // Tiles lie between the lattice and the cells' LEDs: their plates show round the cells.
  el("g", { class: "tile-plates", id: "tile-plates" }, lattice);
  for (let row = 0; row < b.rows; row++) {
    for (let col = 0; col < b.columns; col++) {
      const label = cellLabel(col, row);
      if (holes.has(label)) continue;
      const x = left + (col - view.c0) * CELL;
      const y = top + (view.r1 - row) * CELL;
      const place = addPlace(lattice, label, "cell", x + 3, y + 3, CELL - 6, CELL - 6, 8);
      place.col = col;
      place.row = row;
      if (!area.has(label)) place.group.classList.add("outside");
      if (col < view.c0 || col > view.c1 || row < view.r0 || row > view.r1) {
        // Off the view, drawn all the same so its LED is still followed, but not shown.
        hide(place);
        continue;
      }
      state.cells.set(`${col},${row}`, place);
    }
  }
  outlineArea(area, left - view.c0 * CELL, top - (b.rows - 1 - view.r1) * CELL);
  // Their rims and key notches are drawn over the cells, clear of the pieces in the middle.
  el("g", { class: "tiles", id: "tiles" }, svg);
  el("g", { class: "menu-squares", id: "menu-squares" }, svg);
  for (let col = view.c0; col <= view.c1; col++) {
    const t = el("text", { class: "axis-label", x: left + (col - view.c0) * CELL + CELL / 2, y: top + height + MARGIN / 2 + 4 }, svg);
    t.textContent = gameNames ? cellLabel(col - origin.col, 0).slice(0, 1) : cellLabel(col, 0).slice(0, 1);
  }
  for (let row = view.r0; row <= view.r1; row++) {
    const t = el("text", { class: "axis-label", x: left - MARGIN / 2 - 6, y: top + (view.r1 - row) * CELL + CELL / 2 }, svg);
    t.textContent = String((gameNames ? row - origin.row : row) + 1);
  }
  grow(left - MARGIN - 8, top, MARGIN, height + MARGIN);

  let x = left - GAP;
  for (const box of sides.left) {
    x -= box.across;
    grow(...drawTray(box, x, top + (height - box.along) / 2, true));
    x -= GAP;
  }
  x = left + width + GAP;
  for (const box of sides.right) {
    grow(...drawTray(box, x, top + (height - box.along) / 2, true));
    x += box.across + GAP;
  }
  let y = top - GAP;
  for (const box of sides.top) {
    y -= box.across;
    grow(...drawTray(box, left + (width - box.along) / 2, y, false));
    y -= GAP;
  }
  y = top + height + MARGIN;
  for (const box of sides.bottom) {
    grow(...drawTray(box, left + (width - box.along) / 2, y, false));
    y += box.across + GAP;
  }
  // The trays the game leaves alone: drawn, so their LEDs are followed, but not shown.
  for (const tray of b.trays.filter((one) => !used(one))) {
    const group = drawTray(trayBox(tray, true, height, width), left, top, true, true);
    group.classList.add("unshown");
  }
  for (const place of state.places.values()) {
    if (place.kind === "slot" && place.group.closest(".unshown")) place.shown = false;
  }

  // The status LEDs of the seats that play (and the alert), in a row under the board.
  const below = Math.max(frame.y1, top + height + MARGIN + bottom);
  const statusY = below + 22 * scale;
  const statusGroup = el("g", { class: "status" }, svg);
  let shownStatus = 0;
  b.status.forEach((name) => {
    const group = el("g", { class: "status-led", "data-place": name, "data-led": "000000" }, statusGroup);
    const shown = state.whole || seatPlays(name);
    const cx = left + 20 * scale + (shown ? shownStatus++ : 0) * 120 * scale;
    const circle = el("circle", { cx, cy: statusY, r: 14 * scale, fill: "#23262b" }, group);
    const text = el("text", { x: cx, y: statusY + 34 * scale }, group);
    text.textContent = name;
    if (shown) grow(cx - 60 * scale, statusY - 16 * scale, 120 * scale, 56 * scale);
    else group.classList.add("unshown");
    state.status.push({ name, led: b.leds[name], circle, group });
  });

  // Boxes off the board, where pieces no sensor sees wait: a row of their own, under it all.
  const boxesGroup = el("g", { class: "boxes" }, svg);
  const boxY = Math.max(frame.y1, below) + 12;
  const boxWidth = 2.2 * CELL; // room for "box tokens-turned: 64"
  state.boxes.forEach((label, i) => {
    const bx = left + i * (boxWidth + GAP);
    addPlace(boxesGroup, label, "box", bx + 3, boxY + 3, boxWidth - 6, CELL - 6, 14);
    grow(bx, boxY, boxWidth, CELL);
  });

  const pad = 10;
  const viewWidth = frame.x1 - frame.x0 + 2 * pad;
  const viewHeight = frame.y1 - frame.y0 + 2 * pad;
  svg.setAttribute("viewBox", `${frame.x0 - pad} ${frame.y0 - pad} ${viewWidth} ${viewHeight}`);
  // The page sizes the board by its shape: as wide as the room, or as the height allows.
  document.documentElement.style.setProperty("--board-ratio", String(viewWidth / viewHeight));
  svg.dataset.view = view.whole ? "whole" : "game";

  el("g", { class: "ghost", id: "ghost" }, svg);
  drawTiles();
  drawMenu();
  drawHolders();
}

function hide(place) {
  place.shown = false;
  place.group.classList.add("unshown");
}

function outlineArea(area, left, top) {
  // On a lattice larger than the game, the game's area framed, and its cells named as the
  // game names them (what the banner says); the cells round it are off the game. `left` and
  // `top` are where the lattice's a-column and top row would be drawn.
  const b = state.board;
  const cells = [...area].map(parseCell).filter(Boolean);
  const partial = cells.length && cells.length < b.columns * b.rows - b.holes.length;
  svg.classList.toggle("partial-area", Boolean(partial));
  if (!partial) return;
  const cols = cells.map((c) => c.col);
  const rows = cells.map((c) => c.row);
  const [c0, c1, r0, r1] = [Math.min(...cols), Math.max(...cols), Math.min(...rows), Math.max(...rows)];
  el("rect", {
    class: "game-area",
    x: left + c0 * CELL - 6,
    y: top + (b.rows - 1 - r1) * CELL - 6,
    width: (c1 - c0 + 1) * CELL + 12,
    height: (r1 - r0 + 1) * CELL + 12,
    rx: 14,
  }, svg);
  const origin = gameOrigin();
  for (const label of area) {
    const place = state.places.get(label);
    const cell = parseCell(label);
    if (!place || !place.caption || !cell) continue;
    place.caption.textContent = cellLabel(cell.col - origin.col, cell.row - origin.row);
    place.caption.classList.add("game-square");
    const title = el("title", {}, place.group);
    title.textContent = `board cell ${label}`;
  }
}

function drawTray(box, x, y, vertical, unshown = false) {
  // Returns the box it takes, [x, y, w, h] (its name above it included); or, for a tray not
  // shown, its group.
  const { tray, slot } = box;
  const w = vertical ? box.across : box.along;
  const h = vertical ? box.along : box.across;
  const group = el("g", { class: "tray", "data-tray": tray.name }, svg);
  el("rect", { class: "tray-frame", x: x - 6, y: y - 6, width: w + 12, height: h + 12, rx: 10 }, group);
  const name = el("text", { class: "tray-name", x: x + w / 2, y: y - 14 }, group);
  name.textContent = `tray ${tray.name}`;
  let n = 0;
  tray.rows.forEach((count, r) => {
    for (let k = 0; k < count; k++) {
      const label = tray.slots[n++];
      const sx = vertical ? x + r * slot : x + k * slot;
      const sy = vertical ? y + k * slot : y + r * slot;
      addPlace(group, label, "slot", sx + 3, sy + 3, slot - 6, slot - 6, slot / 2);
    }
  });
  if (unshown) return group;
  return [x - 6, y - 40, w + 12, h + 46];
}

function addPlace(parent, label, kind, x, y, w, h, radius) {
  const group = el("g", {
    class: `place ${kind}`,
    "data-place": label,
    "data-led": "000000",
    transform: `translate(${x} ${y})`,
  }, parent);
  const surface = el("rect", {
    class: "surface",
    width: w,
    height: h,
    rx: radius,
    fill: kind === "cell" ? CELL_OFF : SLOT_OFF,
  }, group);
  let caption = null;
  if (kind === "cell" || kind === "box") {
    caption = el("text", { class: "place-label", x: 6, y: 16 }, group);
    caption.textContent = label;
  }
  const picture = kind === "cell" ? state.printed.get(label) : undefined;
  if (picture) {
    // What the printed overlay shows on this cell, under the pieces; its cut-outs take the
    // colour of the LED beneath (drawLeds). Large: it is what a player looks for.
    const size = Math.min(w, h) * 0.8;
    group.classList.add("printed");
    group.dataset.picture = picture;
    drawPicture(group, picture, (w - size) / 2, (h - size) / 2 + 4, size);
  }
  const pieces = el("g", { class: "pieces" }, group);
  const place = { label, kind, x, y, w, h, led: state.board.leds[label], group, surface, pieces, caption, shown: true };
  state.places.set(label, place);
  return place;
}
