// What a person's hands do on the board: a click lifts or puts down; a drag lifts and puts,
// slides a piece or a group, shifts a tile or (the right button) turns it; keys turn tiles.

import { CELL, $, svg, spectator, state, el } from "./page.js";
import { send } from "./send.js";
import { tileById, tileBox, drawTileShape, pickTile, hoverTile, tileAt, onRim, turnTile } from "./tiles.js";
import { radius, drawPiece, stackAt } from "./pieces.js";

const DRAG_START = 6; // pixels the pointer moves before a press becomes a drag
const WAYS = { right: [1, 0], left: [-1, 0], up: [0, 1], down: [0, -1] }; // columns, rows
const QUARTER = Math.PI / 2;

function toBoard(event) {
  const point = svg.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const matrix = svg.getScreenCTM();
  return matrix ? point.matrixTransform(matrix.inverse()) : point;
}

function placeAt(point) {
  for (const place of state.places.values()) {
    if (place.shown === false) continue;
    if (point.x >= place.x && point.x <= place.x + place.w && point.y >= place.y && point.y <= place.y + place.h) {
      return place;
    }
  }
  return null;
}

function dragMode() {
  const checked = document.querySelector('input[name="drag-mode"]:checked');
  return checked ? checked.value : "move";
}

function setHover(place) {
  for (const p of state.places.values()) p.group.classList.toggle("hover", p === place);
}

function markPath(labels) {
  const on = new Set(labels);
  for (const p of state.places.values()) p.group.classList.toggle("path", on.has(p.label));
}

function showGhost(pieces, point, [sx, sy] = [0, 0]) {
  // The pieces carried, the first under the pointer and the others a cell apart ahead of it.
  const ghost = $("ghost");
  if (!ghost) return;
  ghost.replaceChildren();
  pieces.forEach((piece, k) => {
    drawPiece(ghost, piece, k * sx * CELL, -k * sy * CELL, radius(piece.size, CELL), CELL);
  });
  moveGhost(point);
}

function moveGhost(point) {
  const ghost = $("ghost");
  if (ghost) ghost.setAttribute("transform", `translate(${point.x} ${point.y})`);
}

function hideGhost() {
  const ghost = $("ghost");
  if (ghost) ghost.replaceChildren();
}

function extendPath(drag, target) {
  // A slide goes cell to neighbouring cell: fill in the cells a fast pointer skipped.
  let last = state.places.get(drag.path[drag.path.length - 1]);
  while (last && last !== target) {
    const next = state.cells.get(`${last.col + Math.sign(target.col - last.col)},${last.row + Math.sign(target.row - last.row)}`);
    if (!next) break; // a hole in the lattice
    drag.path.push(next.label);
    last = next;
  }
  markPath(drag.path);
}

function startGroup(drag, event) {
  // A group slide goes the way the pointer first went, along the row or column of the piece
  // pressed. The group is that piece and those side by side ahead of it (a piece ahead could
  // not let it pass); it goes as far as the pointer, up to the next piece or the edge.
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  drag.way = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "right" : "left") : dy < 0 ? "up" : "down";
  const [sx, sy] = WAYS[drag.way];
  const ahead = (k) => state.cells.get(`${drag.start.col + k * sx},${drag.start.row + k * sy}`);
  const full = (k) => ahead(k) && stackAt(ahead(k).label).length > 0;
  let size = 1;
  while (full(size)) size++;
  let room = 0;
  while (ahead(size + room) && !full(size + room)) room++;
  drag.group = Array.from({ length: size }, (_, k) => ahead(k));
  drag.room = room;
  drag.distance = 0;
}

function pushGroup(drag, point) {
  const [sx, sy] = WAYS[drag.way];
  const start = drag.start;
  const right = point.x - (start.x + start.w / 2);
  const up = start.y + start.h / 2 - point.y; // the board's rows go up the screen
  const along = (right * sx + up * sy) / CELL;
  drag.distance = Math.max(0, Math.min(drag.room, Math.round(along)));
  const d = drag.distance;
  markPath(drag.group.map((cell) => state.cells.get(`${cell.col + d * sx},${cell.row + d * sy}`).label));
}

function click(place) {
  // A quick second click may come before the board's answer to the first (the hand shown
  // in sim-pieces): a lift already sent counts as a piece in the hand.
  if ((state.pieces.hand || []).length || state.lifting) {
    state.lifting = false;
    send({ do: "put", args: [place.label] });
  } else if (stackAt(place.label).length) {
    state.lifting = true;
    send({ do: "lift", args: [place.label] });
  }
}

svg.addEventListener("pointerdown", (event) => {
  if (state.drag || spectator) return;
  const point = toBoard(event);
  const tile = tileAt(point);
  if (event.button === 2) {
    if (tile) startTurn(event, tile, point);
    return;
  }
  if (event.button !== 0) return;
  const place = placeAt(point);
  // A press on a tile's rim, or anywhere on it in the tile mode, may become a shift.
  const grabbed = tile && (dragMode() === "tile" || onRim(tile, point)) ? tile : null;
  if (!place && !grabbed) return;
  if (tile) pickTile(tile);
  event.preventDefault();
  svg.setPointerCapture(event.pointerId);
  state.drag = {
    id: event.pointerId,
    start: place,
    tile: grabbed,
    from: point,
    x: event.clientX,
    y: event.clientY,
    active: false,
    mode: null,
    path: place ? [place.label] : [],
    shift: event.shiftKey,
    ctrl: event.ctrlKey || event.metaKey,
  };
});

function startTurn(event, tile, point) {
  event.preventDefault();
  pickTile(tile);
  svg.setPointerCapture(event.pointerId);
  const box = tileBox(tile);
  state.drag = {
    id: event.pointerId,
    mode: "turn",
    tile,
    box,
    angle: Math.atan2(point.y - box.cy, point.x - box.cx),
    swept: 0,
    x: event.clientX,
    y: event.clientY,
    active: false,
  };
}

svg.addEventListener("contextmenu", (event) => {
  // The right button turns tiles: no menu over one.
  if (state.drag || tileAt(toBoard(event))) event.preventDefault();
});

svg.addEventListener("pointermove", (event) => {
  const drag = state.drag;
  const point = toBoard(event);
  if (!drag || event.pointerId !== drag.id) {
    setHover(placeAt(point));
    const tile = tileAt(point);
    hoverTile(tile);
    svg.classList.toggle("on-rim", Boolean(tile) && (dragMode() === "tile" || onRim(tile, point)));
    return;
  }
  if (!drag.active) {
    if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_START) return;
    if (drag.mode === "turn" || drag.tile) {
      drag.active = true;
      drag.mode = drag.mode || "tile";
      svg.classList.add("dragging");
    }
  }
  if (drag.mode === "turn") {
    sweep(drag, point);
    return;
  }
  if (drag.mode === "tile") {
    shiftTo(drag, point);
    return;
  }
  if (!drag.active) {
    const stack = stackAt(drag.start.label);
    if (!stack.length) return; // nothing there to drag: it stays a click
    drag.active = true;
    // Ctrl-drag slides a group; shift-drag swaps lifting and sliding one piece.
    const chosen = dragMode() === "tile" ? "move" : dragMode();
    const flipped = chosen === "move" ? "slide" : "move";
    const mode = drag.ctrl ? "group" : drag.shift ? flipped : chosen;
    drag.mode = mode !== "move" && drag.start.kind === "cell" ? mode : "lift";
    svg.classList.add("dragging");
    if (drag.mode === "lift") send({ do: "lift", args: [drag.start.label] });
    if (drag.mode === "group") {
      startGroup(drag, event);
      showGhost(drag.group.map((cell) => stackAt(cell.label).at(-1)), point, WAYS[drag.way]);
    } else {
      showGhost([stack[stack.length - 1]], point);
    }
  }
  moveGhost(point);
  const over = placeAt(point);
  setHover(over);
  if (drag.mode === "slide" && over && over.kind === "cell") extendPath(drag, over);
  if (drag.mode === "group") pushGroup(drag, point);
});

function endDrag(event, cancelled) {
  const drag = state.drag;
  if (!drag || event.pointerId !== drag.id) return;
  state.drag = null;
  svg.classList.remove("dragging");
  hideGhost();
  markPath([]);
  if (drag.mode === "turn") {
    if (drag.active && !cancelled && Math.abs(drag.swept) >= QUARTER / 2) turnTile(drag.tile, drag.swept > 0);
    return;
  }
  if (!drag.active) {
    if (!cancelled && drag.start) click(drag.start);
    return;
  }
  if (drag.mode === "tile") {
    if (drag.way && !cancelled) send({ do: "shift-tile", args: [drag.tile.cells[0], drag.way] });
    return;
  }
  const over = cancelled ? null : placeAt(toBoard(event));
  if (drag.mode === "lift") {
    send({ do: "put", args: [(over || drag.start).label] });
  } else if (drag.mode === "group") {
    if (drag.distance > 0 && !cancelled) {
      const group = drag.group.map((cell) => cell.label);
      send({ do: "slide-group", args: [...group, drag.way, String(drag.distance)] });
    }
  } else if (drag.path.length > 1 && !cancelled) {
    send({ do: "slide", args: drag.path });
  }
}

svg.addEventListener("pointerup", (event) => endDrag(event, false));
svg.addEventListener("pointercancel", (event) => endDrag(event, true));
svg.addEventListener("pointerleave", () => {
  setHover(null);
  hoverTile(null);
  svg.classList.remove("on-rim");
});

function showTileGhost(tile, dx, dy, angle) {
  // The tile's outline where the hand is taking it: shifted, or turned about its centre.
  const ghost = $("ghost");
  const box = tileBox(tile);
  if (!ghost || !box) return;
  ghost.replaceChildren();
  ghost.setAttribute("transform", `translate(${dx} ${dy}) rotate(${(angle * 180) / Math.PI} ${box.cx} ${box.cy})`);
  const group = el("g", { class: "tile tile-ghost" }, ghost);
  drawTileShape(group, tile, box);
}

function shiftTo(drag, point) {
  // A tile goes one cell the way the pointer went furthest, once it went half a cell.
  const dx = point.x - drag.from.x;
  const dy = point.y - drag.from.y;
  const across = Math.abs(dx) > Math.abs(dy);
  const along = across ? dx : dy;
  drag.way = Math.abs(along) < CELL / 2 ? null : across ? (dx > 0 ? "right" : "left") : dy < 0 ? "up" : "down";
  const reach = Math.max(-CELL, Math.min(CELL, along));
  showTileGhost(drag.tile, across ? reach : 0, across ? 0 : reach, 0);
  if (!drag.way) {
    markPath([]);
    return;
  }
  const [sx, sy] = WAYS[drag.way];
  const target = drag.tile.cells.map((label) => {
    const cell = state.places.get(label);
    return state.cells.get(`${cell.col + sx},${cell.row + sy}`);
  });
  markPath(target.filter(Boolean).map((cell) => cell.label));
}

function sweep(drag, point) {
  // A right-button drag round a tile's centre turns it: the angle swept, clockwise on the
  // screen positive, a quarter either way at most.
  const angle = Math.atan2(point.y - drag.box.cy, point.x - drag.box.cx);
  let step = angle - drag.angle;
  if (step > Math.PI) step -= 2 * Math.PI;
  if (step < -Math.PI) step += 2 * Math.PI;
  drag.angle = angle;
  drag.swept += step;
  showTileGhost(drag.tile, 0, 0, Math.max(-QUARTER, Math.min(QUARTER, drag.swept)));
}

// Turning a tile a quarter: the buttons turn the tile last pressed on; the keys the tile
// under the pointer, or else that one.
$("turn-cw").addEventListener("click", () => {
  const tile = tileById(state.picked);
  if (tile) turnTile(tile, true);
});
$("turn-ccw").addEventListener("click", () => {
  const tile = tileById(state.picked);
  if (tile) turnTile(tile, false);
});

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  if (event.target.closest && event.target.closest("select, textarea, input[type='text'], input[type='number']")) return;
  const clockwise = event.key === "r" ? true : ["R", "e", "E"].includes(event.key) ? false : null;
  if (clockwise === null) return;
  const tile = tileById(state.hoverTile) || tileById(state.picked);
  if (!tile) return;
  event.preventDefault();
  pickTile(tile);
  turnTile(tile, clockwise);
});
