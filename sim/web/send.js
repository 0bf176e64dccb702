// What a person's hands and choices do, sent to the board as commands (sim/commands.py).

import { state } from "./page.js";
import { addLog } from "./log.js";

export function send(command) {
  const socket = state.socket;
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    addLog({ type: "note", t: null, words: { line: "Not connected to the board" } });
    return;
  }
  socket.send(JSON.stringify(command));
}
