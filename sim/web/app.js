// The page of `magboard sim`: draws a simulated board from the events the server sends
// (`sim-board`, `sim-pieces`, `sim-scores`, `sim-leds` and the referee's events,
// docs/protocol.md) and sends back what a person's hands do, as the commands of sim/commands.py,
// and the choices the rules leave to a player. Between the referee's `clock` events it counts
// the clocks down itself. A banner says whose turn it is, what the board waits for and how the
// game ended; a panel shows the game's rules and the legend of the lights (`/rules/...`); the
// board picker sets up any game on any reference board (`/boards`). At `/spectator` (or
// `?view=spectator`) it shows the board and the clocks only, with nothing to press.
//
// This module connects and hands each event to the parts of the page it concerns.

import { BOX, $, state, spectator } from "./page.js";
import { addLog } from "./log.js";
import { drawLeds, drawMenu } from "./leds.js";
import { drawPieces } from "./pieces.js";
import { drawScores, drawHolders, drawLegend, drawChoice } from "./scores.js";
import { buildBoard } from "./board.js";
import { keepTime, drawPlay } from "./play.js";
import { buildPanel, buildOptions, loadBoards } from "./panel.js";
import { drawBanner } from "./banner.js";
import { beep } from "./sounds.js";
import { showRules } from "./rules.js";
import "./hands.js";

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
      // What happened: the detail up to "; ", where what the hands are to do begins.
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

$("whole-board").addEventListener("change", () => {
  state.whole = $("whole-board").checked;
  if (!state.board) return;
  buildBoard();
  drawPieces();
  drawLeds();
});

document.body.classList.toggle("spectator", spectator);
loadBoards();
connect();
