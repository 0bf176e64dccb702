// The clocks, counted down between the referee's `clock` events, and how the match stands.

import { $, state, nameOf } from "./page.js";
import { stackAt } from "./pieces.js";

const LAST_SECONDS = 10; // a clock's final seconds, as firmware/clocks.py counts them

export function keepTime(t) {
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

export function drawPlay() {
  const clocks = $("clocks");
  clocks.hidden = !state.clock;
  if (state.clock) {
    const now = clockNow();
    clocks.replaceChildren(...now.reserves.map((reserve, seat) => drawClock(now, seat, reserve)));
  }
  const match = [];
  if (state.match) match.push(state.match);
  // The one piece of its kind kept aside in a box until a hand puts it down: is it down yet?
  const single = [...state.boxPieces.values()].find((piece) => piece.single);
  if (single) {
    const down = [...state.cells.values()].some((cell) =>
      stackAt(cell.label).some((piece) => piece.kind === single.kind));
    match.push(`${single.single}: ${down ? "on the board" : "still in hand"}`);
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
