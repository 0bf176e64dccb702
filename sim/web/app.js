// The page of `magboard sim`: draws a simulated board from the events the server sends
// (`sim-board`, `sim-pieces`, `sim-scores`, `sim-leds` and the referee's events,
// docs/protocol.md) and sends back what a person's hands do, as the commands of sim/commands.py,
// and the choices the rules leave to a player. Between the referee's `clock` events it counts
// the clocks down itself. A banner says whose turn it is, what the board waits for and how the
// game ended; a panel shows the game's rules and the legend of the lights (`/rules/...`); the
// board picker sets up any game on any reference board (`/boards`). At `/spectator` (or
// `?view=spectator`) it shows the board and the clocks only, with nothing to press.
"use strict";

(() => {
  const SVG = "http://www.w3.org/2000/svg";
  const CELL = 100; // drawing units per lattice cell
  const GAP = 36; // between the lattice and a tray
  const MARGIN = 34; // room for the row and column names
  const DRAG_START = 6; // pixels the pointer moves before a press becomes a drag
  const WAYS = { right: [1, 0], left: [-1, 0], up: [0, 1], down: [0, -1] }; // columns, rows
  const LOG_LIMIT = 300;
  const GAMMA = 0.4; // LEDs run dim: lift their colours for a screen, hue kept
  const CELL_OFF = "#3b4048"; // a dark LED under a cell
  const SLOT_OFF = "#2a2e34"; // a dark LED under a tray slot
  const BOX = "supply:"; // how places name a box of pieces no sensor sees
  const LAST_SECONDS = 10; // a clock's final seconds, as firmware/clocks.py counts them
  const RIM = 22; // drawing units along a tile's edge where a press takes hold of the tile
  const KEY_MARK = 30; // the side of the notch marking a tile's key corner
  const QUARTER = Math.PI / 2;

  const $ = (id) => document.getElementById(id);
  const svg = $("board");
  // A screen beside an exhibit: the board and the clocks, large, and nothing to press.
  const spectator = location.pathname === "/spectator" ||
    new URLSearchParams(location.search).get("view") === "spectator";
  document.body.classList.toggle("spectator", spectator);

  const state = {
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

  // ---- talking to the board ------------------------------------------------------------------

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + "/ws");
    state.socket = socket;
    socket.addEventListener("open", () => {
      state.retry = 500;
      state.live = false;
      state.failures = 0;
      setConnection("open", "connected");
      $("lost").hidden = true;
    });
    socket.addEventListener("message", (message) => {
      for (const line of String(message.data).split("\n")) {
        if (line.trim()) receive(JSON.parse(line));
      }
    });
    socket.addEventListener("close", (closed) => {
      const why = closed.code === 1008 ? " (refused by the server)" : "";
      setConnection("closed", `disconnected${why}: retrying`);
      // A blip is retried quietly; a server that stays away covers the page, which would
      // otherwise show a board that no longer answers.
      state.failures += 1;
      if (state.failures >= 2) $("lost").hidden = false;
      setTimeout(connect, state.retry);
      state.retry = Math.min(state.retry * 2, 8000);
    });
  }

  function setConnection(kind, text) {
    const badge = $("connection");
    badge.dataset.state = kind;
    badge.textContent = text;
  }

  function send(command) {
    const socket = state.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      addLog({ type: "note", t: null, words: { line: "Not connected to the board" } });
      return;
    }
    socket.send(JSON.stringify(command));
  }

  function receive(event) {
    if (event.type === "sim-board") state.time = null; // a new game: a new clock from 0
    if (typeof event.t === "number") keepTime(event.t);
    follow(event);
    switch (event.type) {
      case "sim-board":
        state.board = event;
        state.picked = null;
        state.hoverTile = null;
        state.players = event.players;
        state.clock = null;
        state.match = "";
        state.scores = null;
        state.winners = null;
        state.choice = null;
        state.pictures = new Map((event.overlay || []).map((picture) => [picture.name, picture.drawing]));
        state.printed = new Map((event.overlay || []).flatMap((picture) => picture.cells.map((cell) => [cell, picture.name])));
        buildBoard();
        buildPanel();
        drawPieces();
        drawLeds();
        drawPlay();
        drawScores();
        drawChoice();
        drawLegend();
        drawBanner();
        showRules();
        break;
      case "sim-pieces": {
        state.pieces = event;
        state.tiles = event.tiles || [];
        state.lifting = false;
        const boxes = Object.keys(event.places).filter((place) => place.startsWith(BOX));
        if (state.board && boxes.join() !== state.boxes.join()) {
          state.boxes = boxes; // a game with other boxes: lay the board out again
          state.boxPieces.clear();
          buildBoard();
          drawLeds();
        }
        for (const box of boxes) if (event.places[box].length) state.boxPieces.set(box, event.places[box][0]);
        drawPieces();
        drawPlay();
        break;
      }
      case "sim-scores":
        state.scores = event;
        drawScores();
        drawHolders();
        break;
      case "sim-leds": {
        state.pixels = event.pixels;
        state.live = true; // the last of what a page is sent on connecting
        const menu = event.menu || [];
        const squares = (list) => list.map((square) => square.place).join();
        const moved = squares(menu) !== squares(state.menu);
        state.menu = menu;
        if (moved && state.board) {
          // The menu opened, closed or turned a page: draw the squares it lights.
          buildBoard();
          drawPieces();
        } else {
          drawMenu();
        }
        drawLeds();
        break;
      }
      case "choice":
        state.choice = event;
        drawChoice();
        addLog(event);
        break;
      case "move":
      case "partial":
      case "takeback":
        // The turn moved on: a choice still waiting is offered again after this.
        state.choice = null;
        drawChoice();
        addLog(event);
        break;
      case "leds":
        break; // the referee's frames: sim-leds already says what the chain shows
      case "game-started":
        state.players = event.players;
        addLog(event);
        break;
      case "clock":
        state.clock = event;
        drawPlay();
        addLog(event);
        break;
      case "obligation":
      case "fulfilled":
        // "bout 1: A made a lance of five (A 1, B 0); clear the board...": the result, not
        // what to do about it.
        state.match = event.detail.split("; ")[0];
        drawPlay();
        addLog(event);
        break;
      case "game-over":
        state.match = event.words ? event.words.line : "";
        state.winners = event.winners;
        state.choice = null;
        drawPlay();
        drawScores();
        drawChoice();
        addLog(event);
        break;
      default:
        addLog(event);
    }
  }

  // ---- drawing the board ---------------------------------------------------------------------

  function el(name, attributes = {}, parent = null) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  const cellLabel = (col, row) => String.fromCharCode(97 + col) + (row + 1);

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

  function buildBoard() {
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

  function drawPicture(parent, name, x, y, size) {
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

  function drawMenu() {
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
    // "tic-tac-toe" -> "tic-tac-", "toe". The square's title has it whole.
    const short = (text) => (text.length > 11 ? `${text.slice(0, 10)}\u2026` : text);
    const words = label.replace(/_/g, " ").split(" ");
    if (words.length === 1) {
      const cut = label.lastIndexOf("-");
      return cut > 0 ? [short(label.slice(0, cut + 1)), short(label.slice(cut + 1))] : [short(label)];
    }
    const last = words.pop();
    return [short(words.join(" ")), short(last)];
  }

  function drawHolders() {
    // Who holds each square collected (Magnetmen): the collector's colour round the square
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

  function pictureIcon(name, title) {
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

  function drawLeds() {
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

  // ---- pieces --------------------------------------------------------------------------------

  const radius = (size, unit) => unit * (0.22 + 0.07 * Math.min(3, Math.max(1, size)));

  function inkOn(colour) {
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

  function drawPiece(parent, piece, cx, cy, r, unit) {
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

  function stackAt(label) {
    return state.pieces.places[label] || [];
  }

  function drawPieces() {
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

  // ---- tiles ---------------------------------------------------------------------------------

  const tileById = (id) => state.tiles.find((tile) => tile.id === id) || null;
  // A tile as players name it: by the game's square under its lower-left cell.
  const tileName = (tile) => `the tile at ${gameSquare(tile.cells[0])}`;

  function tileBox(tile) {
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

  function drawTileShape(parent, tile, box) {
    el("rect", { class: "tile-outline", x: box.x, y: box.y, width: box.w, height: box.h, rx: 12 }, parent);
    const notch = keyNotch(tile, box);
    if (notch) el("path", { class: "tile-key", d: notch }, parent);
  }

  function drawTiles() {
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

  function pickTile(tile) {
    state.picked = tile ? tile.id : null;
    for (const node of document.querySelectorAll("#tiles [data-tile]")) {
      node.classList.toggle("picked", Number(node.dataset.tile) === state.picked);
    }
    drawTileControls();
  }

  function hoverTile(tile) {
    state.hoverTile = tile ? tile.id : null;
    for (const node of document.querySelectorAll("#tiles [data-tile]")) {
      node.classList.toggle("hover", Number(node.dataset.tile) === state.hoverTile);
    }
  }

  function tileAt(point) {
    for (const tile of state.tiles) {
      const box = tileBox(tile);
      if (box && point.x >= box.x && point.x <= box.x + box.w && point.y >= box.y && point.y <= box.y + box.h) {
        return tile;
      }
    }
    return null;
  }

  function onRim(tile, point) {
    const box = tileBox(tile);
    if (!box) return false;
    const inside = Math.min(point.x - box.x, box.x + box.w - point.x, point.y - box.y, box.y + box.h - point.y);
    return inside >= 0 && inside <= RIM;
  }

  function turnTile(tile, clockwise) {
    send({ do: "turn-tile", args: [tile.cells[0], clockwise ? "cw" : "ccw"] });
  }

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

  // ---- hands ---------------------------------------------------------------------------------

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

  // ---- the clocks and the match -------------------------------------------------------------

  function keepTime(t) {
    // The board's clock runs --speed times the wall clock: learn how fast from the times of
    // the events as they come (those older than the newest are history, sent on connecting).
    const wall = performance.now() / 1000;
    const time = state.time;
    if (!time) {
      state.time = { t, wall, first: { t, wall } };
    } else if (t > time.t) {
      time.t = t;
      time.wall = wall;
      if (wall - time.first.wall > 1) state.rate = (t - time.first.t) / (wall - time.first.wall);
    }
  }

  function boardNow() {
    const time = state.time;
    return time ? time.t + (performance.now() / 1000 - time.wall) * state.rate : 0;
  }

  function minutes(seconds) {
    const whole = Math.ceil(Math.max(0, seconds));
    return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  }

  function clockNow() {
    // The last clock event, run on to now: the running seat's turn time goes first, then its
    // reserve (docs/protocol.md, `clock`).
    const c = state.clock;
    const spent = c.seat === null ? 0 : Math.max(0, boardNow() - c.t);
    const turn = Math.max(0, c.turn_left - spent);
    const fromReserve = Math.max(0, spent - c.turn_left);
    const reserves = c.reserves.map((r, seat) => (seat === c.seat ? Math.max(0, r - fromReserve) : r));
    return { seat: c.seat, turn, reserves };
  }

  function drawPlay() {
    const clocks = $("clocks");
    clocks.hidden = !state.clock;
    if (state.clock) {
      const now = clockNow();
      clocks.replaceChildren(...now.reserves.map((reserve, seat) => drawClock(now, seat, reserve)));
    }
    const match = [];
    if (state.match) match.push(state.match);
    const boxed = [...state.boxPieces.values()];
    const neutral = boxed.some((piece) => piece.owner !== null) && boxed.find((piece) => piece.owner === null);
    if (neutral) {
      // A box of no one's pieces: Lance Assembly's neutral tile, in hand until it is put down.
      const down = [...state.cells.values()].some((cell) =>
        stackAt(cell.label).some((piece) => piece.kind === neutral.kind));
      match.push(`neutral tile ${neutral.label}: ${down ? "on the board" : "still in hand"}`);
    }
    $("match").textContent = match.join(" \u00b7 ");
    $("play").hidden = !state.clock && !match.length;
  }

  function drawClock(now, seat, reserve) {
    const running = seat === now.seat;
    const left = running ? now.turn + reserve : reserve;
    const item = document.createElement("div");
    item.className = "clock";
    item.dataset.seat = String(seat);
    if (now.seat === null) item.dataset.stage = "stopped";
    else if (!running) item.dataset.stage = "waiting";
    else if (left <= 0) item.dataset.stage = "flag";
    else if (left <= LAST_SECONDS) item.dataset.stage = "last-seconds";
    else item.dataset.stage = now.turn > 0 ? "turn" : "reserve";
    const parts = [
      ["clock-name", nameOf(seat)],
      ["clock-turn", running ? minutes(now.turn) : ""],
      ["clock-reserve", `reserve ${minutes(reserve)}`],
    ];
    for (const [name, text] of parts) {
      const part = document.createElement("span");
      part.className = name;
      part.textContent = text;
      item.appendChild(part);
    }
    return item;
  }

  setInterval(() => {
    if (state.clock && state.clock.seat !== null) drawPlay();
  }, 200);

  // ---- scores and choices --------------------------------------------------------------------

  function drawScores() {
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

  function drawLegend() {
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

  function drawChoice() {
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
      const match = /^[A-Z][+-](.+)$/.exec(option);
      if (match && state.pictures.has(match[1])) button.appendChild(pictureIcon(match[1]));
      button.append(said[i] || option);
      button.addEventListener("click", () => send({ do: "choose", args: [option] }));
      return button;
    });
    $("choice-options").replaceChildren(...buttons);
  }

  // ---- panels --------------------------------------------------------------------------------

  function buildPanel() {
    const b = state.board;
    fillBoards();
    $("game-select").value = "";
    $("game-select").replaceChildren();
    fillGames();

    const buttons = $("buttons");
    buttons.replaceChildren();
    // The seats the game has: no seat 3 and 4 buttons in a game of two.
    const seated = (button) => {
      const seat = /^seat-(\d+)$/.exec(button.name);
      return !seat || Number(seat[1]) <= Math.max(1, b.players.length);
    };
    for (const button of b.buttons.filter(seated)) {
      const node = document.createElement("button");
      node.type = "button";
      node.className = "board-button";
      node.dataset.button = button.name;
      // A seat's button named by the game's seat ("X: done / end turn"), not the board's.
      const seat = /^seat-(\d+)$/.exec(button.name);
      const player = seat && b.players[Number(seat[1]) - 1];
      const does = (button.label || "").split(": ").slice(1).join(": ");
      const label = player && does ? `${player}: ${does}` : button.label || button.name;
      node.title = label;
      node.textContent = label;
      const name = document.createElement("span");
      name.className = "button-name";
      name.textContent = button.name;
      node.appendChild(name);
      node.addEventListener("click", () => send({ do: "press", args: [button.name] }));
      buttons.appendChild(node);
    }

    const expander = $("expander");
    expander.replaceChildren();
    for (const name of b.expanders) {
      const option = document.createElement("option");
      option.value = option.textContent = name;
      expander.appendChild(option);
    }
  }

  function buildOptions() {
    const b = state.board;
    const game = pickedGames().find((g) => g.name === $("game-select").value);
    const box = $("options");
    box.replaceChildren();
    buildOpponent(game);
    if (!game) return;
    for (const option of game.options) {
      const current = game.name === b.game && $("board-select").value === b.board && option.name in b.options ? b.options[option.name] : option.default;
      const label = document.createElement("label");
      label.className = "field";
      label.title = option.help;
      label.append(option.name.replace(/_/g, " "));
      let input;
      if (option.choices.length) {
        input = document.createElement("select");
        for (const choice of option.choices) {
          const item = document.createElement("option");
          item.value = String(choice);
          item.textContent = String(choice);
          item.selected = choice === current;
          input.appendChild(item);
        }
      } else if (typeof option.default === "boolean") {
        input = document.createElement("input");
        input.type = "checkbox";
        input.checked = Boolean(current);
      } else if (typeof option.default === "number") {
        input = document.createElement("input");
        input.type = "number";
        input.step = "1";
        if (option.minimum !== null) input.min = option.minimum;
        if (option.maximum !== null) input.max = option.maximum;
        input.value = current;
      } else {
        input = document.createElement("input");
        input.type = "text";
        input.value = current;
      }
      input.dataset.option = option.name;
      input.dataset.kind = typeof option.default;
      label.appendChild(input);
      box.appendChild(label);
    }
  }

  function chosenOptions() {
    const options = {};
    for (const input of $("options").querySelectorAll("[data-option]")) {
      const kind = input.dataset.kind;
      if (kind === "boolean") options[input.dataset.option] = input.checked;
      else if (kind === "number") options[input.dataset.option] = Number.parseInt(input.value, 10);
      else options[input.dataset.option] = input.value;
    }
    return options;
  }

  function buildOpponent(game) {
    // Nobody, or a seat of the game picked; the one the board plays now where it is this game.
    const select = $("ai-seat");
    const same = game && game.name === state.board.game;
    const current = same && state.ai ? state.ai.seat : "";
    const seats = game ? game.seats || [] : [];
    select.replaceChildren(...["", ...seats].map((seat) => {
      const option = document.createElement("option");
      option.value = seat;
      option.textContent = seat || "nobody";
      option.selected = seat === current;
      return option;
    }));
    if (same && state.ai) $("ai-level").value = state.ai.level;
  }

  function chosenAi() {
    const seat = $("ai-seat").value;
    return seat ? `${seat}:${$("ai-level").value}` : null;
  }

  $("game-select").addEventListener("change", buildOptions);
  $("game-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const command = { do: "new-game", game: $("game-select").value, options: chosenOptions(), ai: chosenAi() };
    if ($("board-select").value && $("board-select").value !== state.board.board) command.board = $("board-select").value;
    $("log").replaceChildren(); // a new game: a log of its own
    send(command);
  });

  for (const button of document.querySelectorAll("[data-fault]")) {
    button.addEventListener("click", () => {
      const args = button.dataset.fault.split(" ");
      if (args[0] === "i2c-burst" || args[0] === "expander-reset") args.push($("expander").value);
      send({ do: "fault", args });
    });
  }

  // ---- the banner: whose turn, what the board waits for, the result --------------------------

  function gameOrigin() {
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

  function gameSquare(label) {
    // A board cell by the game's own name for it (tic-tac-toe's b2 lies on r1's f6).
    const cell = parseCell(label);
    if (!cell) return label;
    const origin = gameOrigin();
    return cellLabel(cell.col - origin.col, cell.row - origin.row);
  }

  function parseCell(label) {
    const match = /^([a-z])(\d+)$/.exec(label);
    return match ? { col: match[1].charCodeAt(0) - 97, row: Number(match[2]) - 1 } : null;
  }

  function follow(e) {
    // The server words every event (firmware/words) and says what the banner says after it:
    // the page shows those words, and works nothing out of the events itself.
    if (e.type === "note") {
      // Which seat the board plays, for the picker.
      const plays = /^the board plays (\S+) \((\w+)\)$/.exec(e.text);
      if (plays) {
        state.ai = { seat: plays[1], level: plays[2] };
        buildOptions();
      }
    }
    if (e.words && e.words.banner) {
      state.banner = e.words.banner;
      drawBanner();
    }
    const sounds = { move: "move", illegal: "mistake", "game-over": "win" };
    if (sounds[e.type]) beep(sounds[e.type]);
  }

  function drawBanner() {
    const banner = $("banner");
    const swatch = $("banner-swatch");
    const colours = (state.board && state.board.seat_colours) || [];
    const said = state.banner || { text: "Waiting for the board", mood: "waiting", seat: null };
    const seat = said.seat;
    const coloured = typeof seat === "number" && colours[seat];
    swatch.hidden = !coloured;
    if (coloured) swatch.style.backgroundColor = colours[seat];
    banner.dataset.state = said.mood;
    banner.dataset.seat = typeof seat === "number" ? String(seat) : "";
    $("banner-text").textContent = said.text;
    $("banner-text").title = said.text;
  }

  // ---- sounds ------------------------------------------------------------------------------

  let audio = null;

  function beep(kind) {
    // A few short tones, only for what happens now and only when asked for.
    if (!state.live || !$("sound").checked) return;
    const tunes = { move: [[660, 0.08]], mistake: [[220, 0.25]], win: [[523, 0.12], [659, 0.12], [784, 0.25]] };
    try {
      audio = audio || new AudioContext();
      let at = audio.currentTime;
      for (const [frequency, length] of tunes[kind]) {
        const tone = audio.createOscillator();
        const gain = audio.createGain();
        tone.frequency.value = frequency;
        gain.gain.setValueAtTime(0.15, at);
        gain.gain.exponentialRampToValueAtTime(0.001, at + length);
        tone.connect(gain).connect(audio.destination);
        tone.start(at);
        tone.stop(at + length);
        at += length;
      }
    } catch (error) {
      $("sound").checked = false; // no sound on this browser
    }
  }

  const remembered = (value) => {
    // Whether this browser asked for sounds last time (storage may be refused: then not).
    try {
      if (value !== undefined) localStorage.setItem("magboard-sound", value ? "on" : "off");
      return localStorage.getItem("magboard-sound") === "on";
    } catch (error) {
      return false;
    }
  };
  $("sound").checked = remembered();
  $("sound").addEventListener("change", () => {
    remembered($("sound").checked);
    if ($("sound").checked) {
      state.live = true;
      beep("move");
    }
  });

  // ---- the rules and the lights --------------------------------------------------------------

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

  function showRules() {
    const game = state.board.game;
    if (state.rulesFor === game) return;
    state.rulesFor = game;
    showText("rules", `/rules/${encodeURIComponent(game)}`, `No rules of ${game} to show yet.`);
    if (!$("lights").dataset.loaded) showText("lights", "/rules/lights", "");
  }

  // ---- the board picker ----------------------------------------------------------------------

  async function loadBoards() {
    try {
      const answer = await fetch("/boards");
      state.boards = await answer.json();
    } catch (error) {
      state.boards = [];
    }
    fillBoards();
  }

  function fillBoards() {
    const b = state.board;
    if (!b) return;
    const select = $("board-select");
    const boards = state.boards.some((board) => board.name === b.board)
      ? state.boards
      : [{ name: b.board, title: b.title, games: b.games }, ...state.boards];
    select.replaceChildren(...boards.map((board) => {
      const option = document.createElement("option");
      option.value = board.name;
      option.textContent = board.name;
      option.title = board.title;
      option.selected = board.name === b.board;
      return option;
    }));
  }

  function pickedGames() {
    // The games of the board picked: this board's as sim-board has them, another's from /boards.
    const b = state.board;
    const name = $("board-select").value || b.board;
    if (name === b.board) return b.games;
    const board = state.boards.find((one) => one.name === name);
    return board ? board.games : [];
  }

  function fillGames() {
    const b = state.board;
    const select = $("game-select");
    const wanted = select.value || b.game;
    const games = pickedGames();
    const chosen = games.some((game) => game.name === wanted) ? wanted : games.length ? games[0].name : "";
    select.replaceChildren(...games.map((game) => {
      const option = document.createElement("option");
      option.value = game.name;
      option.textContent = game.title || game.name;
      option.selected = game.name === chosen;
      return option;
    }));
    buildOptions();
  }

  $("board-select").addEventListener("change", fillGames);

  // ---- the event log -------------------------------------------------------------------------

  const nameOf = (seat) => state.players[seat] ?? `player ${seat + 1}`;

  function addLog(event) {
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

  // The banner shows two lines at most; the whole of what it says is its tooltip.
  new MutationObserver(() => {
    $("banner").title = $("banner-text").textContent;
  }).observe($("banner-text"), { childList: true, characterData: true, subtree: true });

  $("whole-board").addEventListener("change", () => {
    state.whole = $("whole-board").checked;
    if (!state.board) return;
    buildBoard();
    drawPieces();
    drawLeds();
  });

  loadBoards();
  connect();
})();
