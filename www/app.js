// The playground: builds each panel, hands them to the replay, and wires the
// page's events. Every handler catches its own errors and turns them into
// notices, so no failure leaves the page blank or stuck.

import { createChartPanel } from './chart-panel.js';
import { createConversationPanel } from './conversation-panel.js';
import { errorText } from './render.js';
import { createReplay } from './replay.js';
import { createResultsPanel } from './results-panel.js';
import { createRunPanel } from './run-panel.js';
import { createSettingsPanel } from './settings-panel.js';

export async function startPlayground({ api, notify, clearNotice }) {
  const $ = (id) => document.getElementById(id);
  const form = $('controls');
  const conversation = createConversationPanel($, { notify, clearNotice });
  const settings = createSettingsPanel($, form, { api, notify, clearNotice });
  const run = createRunPanel($);
  const results = createResultsPanel($, api);
  const chart = createChartPanel($);
  const replay = createReplay({ conversation, settings, run, results, chart }, { api, notify });

  /** Wraps a handler so that any failure becomes a notice and the controls come back. */
  const guarded = (handler) => async () => {
    try {
      await handler();
    } catch (error) {
      notify({ key: 'action', level: 'error', text: `Something went wrong: ${errorText(error)}` });
    } finally {
      replay.updateControls();
    }
  };

  conversation.listen({
    onUsePasted: guarded(() => {
      const turns = conversation.readPasted();
      if (turns) replay.useTurns(turns);
    }),
    onLoadSample: guarded(async () => replay.useTurns(await conversation.loadSample())),
  });
  run.listen({ onStep: guarded(replay.stepOnce), onRun: guarded(replay.runToEnd), onStop: replay.stop, onReset: guarded(replay.reset) });
  settings.listen(guarded(replay.restartForNewSettings));
  // The controls are a form for grouping and labels only; never navigate away.
  form.addEventListener('submit', (event) => event.preventDefault());
  chart.redrawOnResize(replay.drawChart);

  conversation.foldEditorOnPhones();
  try {
    replay.useTurns(await conversation.loadSample());
  } catch (error) {
    conversation.showSampleUnavailable(error);
  }
  replay.updateControls();
}
