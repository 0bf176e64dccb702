// The side panel: the game form (board, game, options, the seat the board plays), the
// board picker behind it (`/boards`), the board's buttons and the faults to inject.

import { $, state } from "./page.js";
import { send } from "./send.js";

export function buildPanel() {
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

export function buildOptions() {
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

export async function loadBoards() {
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
