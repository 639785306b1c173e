// The Run panel: Step, Run to end, Stop and Reset, the turn counter, and a
// one-line summary of the latest turn with a link down to the results.

import { el } from './render.js';

export function createRunPanel($) {
  const step = $('step-turn');
  const run = $('run-to-end');
  const stop = $('stop-run');
  const reset = $('reset-run');
  const turnStatus = $('turn-status');
  const runSummary = $('run-summary');

  return {
    listen({ onStep, onRun, onStop, onReset }) {
      step.addEventListener('click', onStep);
      run.addEventListener('click', onRun);
      stop.addEventListener('click', onStop);
      reset.addEventListener('click', onReset);
    },
    setSummary(text) {
      runSummary.replaceChildren(`${text} `, el('a', { class: 'results-link', href: '#results' }, 'Jump to results'));
    },
    enable({ hasTurns, running, busy, finished, stepsTaken }) {
      // A single step leaves Step enabled (stepOnce ignores a click while one is
      // in flight): disabling the focused button would drop keyboard focus.
      step.disabled = !hasTurns || running || finished;
      run.disabled = !hasTurns || busy || finished;
      stop.disabled = !running;
      reset.disabled = busy || stepsTaken === 0;
    },
    /** After `focusedButton` was disabled, keeps keyboard focus in the run controls, e.g. Run to end → Stop → Step. */
    keepFocusFrom(focusedButton) {
      if (focusedButton?.disabled) [stop, step, run, reset].find((button) => !button.disabled)?.focus();
    },
    showProgress(simulation, total) {
      const stepsTaken = simulation?.stepsTaken ?? 0;
      turnStatus.textContent =
        stepsTaken === 0
          ? `Turn 0 of ${total}`
          : `Turn ${simulation.latest.turn} · ${stepsTaken} of ${total} played${simulation.finished ? ' · end of conversation' : ''}`;
    },
  };
}
