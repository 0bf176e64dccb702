// The banner: whose turn it is, what the board waits for, how the game ended, as the server
// words it.

import { $, state } from "./page.js";

export function drawBanner() {
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

// The banner shows two lines at most; the whole of what it says is its tooltip.
new MutationObserver(() => {
  $("banner").title = $("banner-text").textContent;
}).observe($("banner-text"), { childList: true, characterData: true, subtree: true });
