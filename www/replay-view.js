// How the panels show the replay: cleared when it restarts, filled in after
// each turn, and only the controls that make sense in its state enabled.

import { runSummaryText, turnFacts, turnFigures } from './turn-summary.js';

export function createReplayView(state, { api, conversation, settings, run, results, chart }) {
  function drawChart() {
    chart.draw(state.simulation?.history ?? [], state.turns);
  }

  /** While a turn is played, nothing that would restart the replay can be used. */
  function updateControls() {
    const busy = state.running || state.stepping;
    const focusedButton = document.activeElement instanceof HTMLButtonElement ? document.activeElement : undefined;
    run.enable({
      hasTurns: state.turns.length > 0,
      running: state.running,
      busy,
      finished: state.simulation?.finished ?? false,
      stepsTaken: state.simulation?.stepsTaken ?? 0,
    });
    settings.setBusy(busy);
    conversation.setBusy(busy);
    run.keepFocusFrom(focusedButton);
    run.showProgress(state.simulation, state.turns.length);
  }

  return {
    drawChart,
    updateControls,
    showRestart() {
      run.setSummary('Nothing played yet.');
      results.clear();
      drawChart();
      updateControls();
    },
    showTurn(simulation, snapshot) {
      const figures = turnFigures(snapshot, api);
      results.showTurnFacts(turnFacts(snapshot, figures));
      run.setSummary(runSummaryText(snapshot, figures));
      results.showEntries(simulation, snapshot);
      drawChart();
      updateControls();
    },
  };
}
