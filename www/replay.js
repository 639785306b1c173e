// The replay: the conversation stepped turn by turn through the simulation the
// settings describe, restarted from turn 0 whenever the conversation or a
// setting changes. The panels show it through the replay view.

import { errorText, eventKind } from './render.js';
import { createReplayView } from './replay-view.js';

export function createReplay(panels, { api, notify }) {
  const { settings } = panels;
  // `stepping`: a fold is in flight (an endpoint can take seconds), so nothing
  // else may touch the simulation until it lands. `running`: Run to end loops.
  // `replay` counts restarts: a simulation built for settings that changed
  // while it was being built (its tokenizer is imported then) is not used.
  const state = { turns: [], simulation: null, replay: 0, stepping: false, running: false, stopRequested: false };
  const view = createReplayView(state, { api, ...panels });

  function useTurns(turns) {
    state.turns = turns;
    reset();
  }

  function reset() {
    state.simulation = null;
    state.replay += 1;
    view.showRestart();
  }

  async function stepOnce() {
    if (state.turns.length === 0 || state.stepping) return false;
    state.stepping = true;
    view.updateControls();
    try {
      // Built on the first step: a real tokenizer is imported then.
      if (!state.simulation) {
        const replay = state.replay;
        const built = await settings.createSimulation(state.turns);
        if (replay !== state.replay) return false;
        state.simulation = built;
      }
      const simulation = state.simulation;
      if (!simulation || simulation.finished) return false;
      const snapshot = await simulation.step();
      view.showTurn(simulation, snapshot);
      reportProblems(snapshot, notify);
      return true;
    } finally {
      state.stepping = false;
    }
  }

  async function runToEnd() {
    state.running = true;
    state.stopRequested = false;
    view.updateControls();
    try {
      while (!state.stopRequested && (await stepOnce()) && !state.simulation.finished) {
        // Let the browser paint each turn (and handle a Stop click) before the next.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      state.running = false;
      view.updateControls();
    }
  }

  function stop() {
    state.stopRequested = true;
  }

  function restartForNewSettings() {
    settings.showSummarizerFields();
    const hadProgress = (state.simulation?.stepsTaken ?? 0) > 0;
    reset();
    settings.validateNow();
    if (hadProgress) notify({ key: 'restart', text: 'Settings changed: the replay restarted at turn 0.' });
  }

  const { drawChart, updateControls } = view;
  return { useTurns, reset, stepOnce, runToEnd, stop, restartForNewSettings, drawChart, updateControls };
}

/** One notice per kind of failure, so a summarizer failing every turn stays one message. */
function reportProblems(snapshot, notify) {
  for (const event of snapshot.events) {
    const reason = event.payload?.reason ?? '';
    if (eventKind(event.payload ?? {}) !== 'failure') continue;
    const key = reason.includes('summarizer-failed') ? 'summarizer' : reason.includes('write-back') ? 'store' : 'input';
    notify({ key, level: 'error', text: `Turn ${snapshot.turn}: ${reason}` });
  }
  if (snapshot.foldError) {
    notify({ key: 'fold', level: 'error', text: `Turn ${snapshot.turn}: stage.fold rejected (${errorText(snapshot.foldError)}); recall shown unfolded.` });
  }
}
