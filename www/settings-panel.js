// The Stage settings and Summarizer panels: the simulation their values
// describe, checked as soon as a value changes so that a setting that cannot
// run is reported before the next step, not at it.

import { ConversationSimulation } from './simulation.js';
import { errorText } from './render.js';
import { loadCount, stageOptions, summarizerConfig, tokenCounters, usesEndpoint } from './settings-form.js';

export function createSettingsPanel($, form, { api, notify, clearNotice }) {
  const settings = $('settings');
  const summarizer = $('summarizer');
  const endpointFields = $('endpoint-fields');
  const reportCannotRun = (error) => notify({ key: 'settings', level: 'error', text: `These settings cannot run: ${errorText(error)}` });

  /** The simulation of `turns` these settings describe, or null once a notice says why they cannot run. */
  async function createSimulation(turns) {
    try {
      const summarizerOptions = summarizerConfig(form, api);
      const options = stageOptions(form);
      const counters = await tokenCounters(form);
      const simulation = new ConversationSimulation({
        turns,
        loadCount: loadCount(form),
        countTokens: counters.page,
        buildStage: (store, now) =>
          api.summarize({
            ...summarizerOptions,
            ...options,
            ...(counters.stage ? { countTokens: counters.stage } : {}),
            store: { put: (identity, entry) => store.put(identity, entry) },
            now,
          }),
      });
      clearNotice('settings');
      return simulation;
    } catch (error) {
      reportCannotRun(error);
      return null;
    }
  }

  /** Checks the numeric settings at once, with a summarizer that is never called. */
  function validateNow() {
    try {
      api.summarize({ llm: async () => '', ...stageOptions(form) });
      loadCount(form);
      clearNotice('settings');
    } catch (error) {
      reportCannotRun(error);
    }
  }

  return {
    createSimulation,
    validateNow,
    listen(onChange) {
      settings.addEventListener('change', onChange);
      summarizer.addEventListener('change', onChange);
    },
    /** The endpoint's URL, model and key matter only when the endpoint is the summarizer. */
    showSummarizerFields() {
      endpointFields.hidden = !usesEndpoint(form);
    },
    setBusy(busy) {
      settings.disabled = busy;
      summarizer.disabled = busy;
    },
  };
}
