// Sounds: a tone for a move, a mistake and a win, when the page is asked for them.

import { $, state } from "./page.js";

let audio = null;

export function beep(kind) {
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
