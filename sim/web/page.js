// What every part of the page shares: the drawing's units, the elements it draws in, what it
// knows of the board (`state`, filled from the server's events) and the board's names of cells.

export const SVG = "http://www.w3.org/2000/svg";
export const CELL = 100; // drawing units per lattice cell
export const BOX = "supply:"; // how places name a box of pieces no sensor sees
export const CELL_OFF = "#3b4048"; // a dark LED under a cell
export const SLOT_OFF = "#2a2e34"; // a dark LED under a tray slot

export const $ = (id) => document.getElementById(id);

export const svg = $("board");

// A screen beside an exhibit: the board and the clocks, large, and nothing to press.
export const spectator = location.pathname === "/spectator" ||
  new URLSearchParams(location.search).get("view") === "spectator";

export const state = {
  board: null, // the last sim-board event
  ai: null, // {seat, level}: the seat the board plays, as the server last said
  places: new Map(), // label -> {label, kind, x, y, w, h, col, row, led, group, surface, pieces, caption}
  cells: new Map(), // "col,row" -> place
  status: [], // {name, led, circle, group}
  boxes: [], // the place of each box drawn ("supply:A"), from sim-pieces
  boxPieces: new Map(), // box -> the piece it holds, once seen there
  pieces: { places: {}, hand: [] },
  tiles: [], // {id, cells: [lower-left, lower-right, upper-left, upper-right], key}, from sim-pieces
  picked: null, // the id of the tile last pressed on: what the turn buttons turn
  hoverTile: null, // the id of the tile under the pointer: what the keys turn first
  lifting: false, // a lift sent by a click, not yet answered
  pixels: "",
  players: [],
  pictures: new Map(), // the printed overlay's pictures: name -> drawing, from sim-board
  printed: new Map(), // cell -> the name of the picture printed on it
  scores: null, // the last sim-scores event: running scores and inventories
  winners: null, // the seats that won, once the game is over
  choice: null, // the choice the rules wait for, from the last `choice` event
  clock: null, // the last clock event
  match: "", // how the match stands, in the referee's words
  time: null, // {t, wall, first: {t, wall}}: the board's clock, from the events' times
  rate: 1, // board seconds per wall second (`magboard sim --speed`), as the events show it
  drag: null,
  socket: null,
  retry: 500,
  boards: [], // every reference board and the games it hosts, from /boards
  banner: null, // {text, mood, seat}: what the banner says, as the server words it
  live: false, // past the events sent on connecting: the sounds are for what happens now
  rulesFor: null, // the game whose rules are shown
  menu: [], // the LED menu's squares while it is open, from sim-leds
  whole: false, // the whole board drawn, not the game's area alone (for a hardware tester)
  view: null, // the lattice's columns and rows drawn
  failures: 0, // connections lost or refused in a row: two, and the page says so in full
};

export function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

export const cellLabel = (col, row) => String.fromCharCode(97 + col) + (row + 1);

export function gameOrigin() {
  // The lower-left cell of the game's area: the game names its squares from there.
  const area = (state.board && state.board.area) || [];
  let col = Infinity;
  let row = Infinity;
  for (const label of area) {
    const cell = parseCell(label);
    if (!cell) continue;
    col = Math.min(col, cell.col);
    row = Math.min(row, cell.row);
  }
  return Number.isFinite(col) ? { col, row } : { col: 0, row: 0 };
}

export function gameSquare(label) {
  // A board cell by the game's own name for it (a 3x3 game's b2 lies on r1's f6).
  const cell = parseCell(label);
  if (!cell) return label;
  const origin = gameOrigin();
  return cellLabel(cell.col - origin.col, cell.row - origin.row);
}

export function parseCell(label) {
  const match = /^([a-z])(\d+)$/.exec(label);
  return match ? { col: match[1].charCodeAt(0) - 97, row: Number(match[2]) - 1 } : null;
}

export const nameOf = (seat) => state.players[seat] ?? `player ${seat + 1}`;
