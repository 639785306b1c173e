// The playground controller: reads the controls, drives the simulation, and
// renders each snapshot. Every handler catches its own errors and turns them
// into notices, so no failure leaves the page blank or stuck.

import { ConversationInputError, messageCount, parseConversation, turnsFromMessages, turnsToLines } from './conversation.js';
import { ConversationSimulation } from './simulation.js';
import { openAiCompatibleProvider } from './openai-provider.js';
import { CHART_SERIES, describeRecallChart, drawRecallChart } from './chart.js';
import { el, errorText, eventKind, eventLogItems, fact, renderRecall, renderStore } from './render.js';

const SAMPLE_URL = './sample-conversation.json';

export async function startPlayground({ api, notify, clearNotice }) {
  const $ = (id) => document.getElementById(id);
  const form = $('controls');
  // Read through the form, not the fieldsets: only the form's collection gives
  // a radio group's checked value.
  const field = (name) => form.elements[name];
  const controls = {
    conversationInput: $('conversation-input'),
    conversationError: $('conversation-error'),
    conversationStatus: $('conversation-status'),
    conversationEditor: $('conversation-editor'),
    usePasted: $('use-pasted'),
    loadSample: $('load-sample'),
    settings: $('settings'),
    summarizer: $('summarizer'),
    endpointFields: $('endpoint-fields'),
    step: $('step-turn'),
    run: $('run-to-end'),
    stop: $('stop-run'),
    reset: $('reset-run'),
    turnStatus: $('turn-status'),
    runSummary: $('run-summary'),
  };
  const views = {
    turnSummary: $('turn-summary'),
    recall: $('recall'),
    store: $('store'),
    eventLog: $('event-log'),
    eventLogEmpty: $('event-log-empty'),
    chart: $('recall-chart'),
    chartDescription: $('chart-description'),
    chartTable: $('chart-table'),
  };

  // `stepping`: a fold is in flight (an endpoint can take seconds), so nothing
  // else may touch the simulation until it lands. `running`: Run to end loops.
  // `replay` counts restarts: a simulation built for settings that changed
  // while it was being built (its tokenizer is imported then) is not used.
  const state = { turns: [], simulation: null, replay: 0, stepping: false, running: false, stopRequested: false };

  // ---- conversation -------------------------------------------------------

  function useConversation(turns, description) {
    state.turns = turns;
    controls.conversationStatus.textContent = `${description}: ${turns.length} turns, ${messageCount(turns)} messages.`;
    resetReplay();
  }

  async function loadSample() {
    const response = await fetch(SAMPLE_URL);
    if (!response.ok) throw new Error(`${SAMPLE_URL} answered HTTP ${response.status}`);
    const turns = turnsFromMessages(await response.json());
    controls.conversationInput.value = turnsToLines(turns);
    showConversationError(undefined);
    useConversation(turns, 'Sample support conversation');
  }

  function usePasted() {
    let turns;
    try {
      turns = parseConversation(controls.conversationInput.value);
    } catch (error) {
      if (!(error instanceof ConversationInputError)) throw error;
      showConversationError(error.message);
      return;
    }
    showConversationError(undefined);
    useConversation(turns, 'Pasted conversation');
  }

  function showConversationError(message) {
    if (message !== undefined) controls.conversationEditor.open = true;
    controls.conversationError.hidden = message === undefined;
    controls.conversationError.textContent = message ?? '';
    controls.conversationInput.toggleAttribute('aria-invalid', message !== undefined);
    if (message === undefined) clearNotice('conversation');
    else notify({ key: 'conversation', level: 'error', text: `The pasted conversation was not used. ${message}` });
  }

  // ---- settings -----------------------------------------------------------

  /** Numeric fields: blank means "use the package default", so the key is left out. */
  function numberSetting(name) {
    const raw = field(name).value.trim();
    return raw === '' ? undefined : Number(raw);
  }

  function stageOptions() {
    const preserveRecentTokens = numberSetting('preserveRecentTokens');
    const options = {
      triggerMinEntries: numberSetting('triggerMinEntries'),
      // preserveRecentTokens replaces preserveRecent: the package refuses both.
      preserveRecent: preserveRecentTokens === undefined ? numberSetting('preserveRecent') : undefined,
      triggerMinTokens: numberSetting('triggerMinTokens'),
      preserveRecentTokens,
      minFoldEntries: numberSetting('minFoldEntries'),
      maxSummaries: numberSetting('maxSummaries'),
      summaryTier: field('summaryTier').value,
      timeoutMs: numberSetting('timeoutMs'),
      keepDetails: field('keepDetails').checked || undefined,
    };
    return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  }

  function loadCount() {
    const count = numberSetting('loadCount');
    if (!Number.isInteger(count) || count < 1) {
      throw new Error(`"Entries loaded per turn" must be a whole number of at least 1, got ${JSON.stringify(field('loadCount').value)}.`);
    }
    return count;
  }

  function summarizerConfig() {
    if (field('summarizer').value === 'extractive') {
      if (typeof api.extractive !== 'function') {
        throw new Error('this build of the package has no `extractive` export; rebuild it, or use an endpoint.');
      }
      return { llm: api.extractive() };
    }
    const baseUrl = field('baseUrl').value.trim();
    if (!/^https?:\/\/\S+$/.test(baseUrl)) {
      throw new Error('Enter the endpoint base URL, e.g. http://127.0.0.1:11434/v1 (the page calls {base}/chat/completions).');
    }
    const model = field('model').value.trim();
    // An empty model goes to the stage as undefined on purpose: the package
    // refuses a provider without a model, and its message explains why.
    return {
      llm: openAiCompatibleProvider({ baseUrl, apiKey: field('apiKey').value }),
      model: model === '' ? undefined : model,
    };
  }

  /**
   * The token counter the settings name: `stage` is the stage's
   * `countTokens` (undefined leaves counting to the package), `page` counts
   * the page's own figures alike (undefined for characters only).
   * gpt-tokenizer is imported on first use (its o200k_base vocabulary is 2.4 MB).
   */
  async function tokenCounters() {
    const choice = field('tokenCounter').value;
    const quarter = (text) => Math.ceil(text.length / 4);
    if (choice === 'approximate') return { stage: quarter, page: quarter };
    if (choice === 'o200k') {
      const { countTokens } = await import('../node_modules/gpt-tokenizer/esm/encoding/o200k_base.js');
      const o200k = (text) => countTokens(text, { disallowedSpecial: new Set() });
      return { stage: o200k, page: o200k };
    }
    // None chosen: with a token option the package counts ceil(length / 4), and so does the page.
    const tokenOption = numberSetting('triggerMinTokens') !== undefined || numberSetting('preserveRecentTokens') !== undefined;
    return { stage: undefined, page: tokenOption ? quarter : undefined };
  }

  async function createSimulation() {
    try {
      const summarizer = summarizerConfig();
      const options = stageOptions();
      const counters = await tokenCounters();
      const simulation = new ConversationSimulation({
        turns: state.turns,
        loadCount: loadCount(),
        countTokens: counters.page,
        buildStage: (store, now) =>
          api.summarize({
            ...summarizer,
            ...options,
            ...(counters.stage ? { countTokens: counters.stage } : {}),
            store: { put: (identity, entry) => store.put(identity, entry) },
            now,
          }),
      });
      clearNotice('settings');
      return simulation;
    } catch (error) {
      notify({ key: 'settings', level: 'error', text: `These settings cannot run: ${errorText(error)}` });
      return null;
    }
  }

  /** Checks the numeric settings at once, with a summarizer that is never called. */
  function validateSettingsNow() {
    try {
      api.summarize({ llm: async () => '', ...stageOptions() });
      loadCount();
      clearNotice('settings');
    } catch (error) {
      notify({ key: 'settings', level: 'error', text: `These settings cannot run: ${errorText(error)}` });
    }
  }

  function onSettingsChanged() {
    controls.endpointFields.hidden = field('summarizer').value !== 'endpoint';
    const hadProgress = (state.simulation?.stepsTaken ?? 0) > 0;
    resetReplay();
    validateSettingsNow();
    if (hadProgress) notify({ key: 'restart', text: 'Settings changed: the replay restarted at turn 0.' });
  }

  // ---- running ------------------------------------------------------------

  async function stepOnce() {
    if (state.turns.length === 0 || state.stepping) return false;
    state.stepping = true;
    updateButtons();
    try {
      // Built on the first step: a real tokenizer is imported then.
      if (!state.simulation) {
        const replay = state.replay;
        const built = await createSimulation();
        if (replay !== state.replay) return false;
        state.simulation = built;
      }
      const simulation = state.simulation;
      if (!simulation || simulation.finished) return false;
      const snapshot = await simulation.step();
      renderSnapshot(simulation, snapshot);
      reportProblems(snapshot);
      return true;
    } finally {
      state.stepping = false;
    }
  }

  async function runToEnd() {
    state.running = true;
    state.stopRequested = false;
    updateButtons();
    try {
      while (!state.stopRequested && (await stepOnce()) && !state.simulation.finished) {
        // Let the browser paint each turn (and handle a Stop click) before the next.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      state.running = false;
      updateButtons();
    }
  }

  function setRunSummary(text) {
    controls.runSummary.replaceChildren(`${text} `, el('a', { class: 'results-link', href: '#results' }, 'Jump to results'));
  }

  function resetReplay() {
    state.simulation = null;
    state.replay += 1;
    setRunSummary('Nothing played yet.');
    views.eventLog.replaceChildren();
    views.eventLogEmpty.hidden = false;
    views.turnSummary.replaceChildren(el('p', { class: 'muted' }, 'No turn played yet. Use Step one turn or Run to end.'));
    views.recall.replaceChildren(el('p', { class: 'muted' }, 'Nothing recalled yet.'));
    views.store.replaceChildren(el('p', { class: 'muted' }, 'The store is empty.'));
    drawChart();
    updateButtons();
  }

  function updateButtons() {
    const busy = state.running || state.stepping;
    const finished = state.simulation?.finished ?? false;
    const stepsTaken = state.simulation?.stepsTaken ?? 0;
    const focusedButton = document.activeElement instanceof HTMLButtonElement ? document.activeElement : undefined;
    // A single step leaves Step enabled (stepOnce ignores a click while one is
    // in flight): disabling the focused button would drop keyboard focus.
    controls.step.disabled = state.turns.length === 0 || state.running || finished;
    controls.run.disabled = state.turns.length === 0 || busy || finished;
    controls.stop.disabled = !state.running;
    controls.reset.disabled = busy || stepsTaken === 0;
    controls.settings.disabled = busy;
    controls.summarizer.disabled = busy;
    controls.usePasted.disabled = busy;
    controls.loadSample.disabled = busy;
    if (focusedButton?.disabled) {
      // Keep keyboard focus in the run controls, e.g. Run to end → Stop → Step.
      [controls.stop, controls.step, controls.run, controls.reset].find((button) => !button.disabled)?.focus();
    }
    const total = state.turns.length;
    controls.turnStatus.textContent =
      stepsTaken === 0
        ? `Turn 0 of ${total}`
        : `Turn ${state.simulation.latest.turn} · ${stepsTaken} of ${total} played${finished ? ' · end of conversation' : ''}`;
  }

  // ---- rendering ----------------------------------------------------------

  function renderSnapshot(simulation, snapshot) {
    const summariesInRecall = snapshot.recall.filter((entry) => api.isSummaryEntry(entry)).length;
    const recalledIds = new Set(snapshot.recall.map((entry) => entry.id));
    const hiddenCount = snapshot.loaded.filter((entry) => !recalledIds.has(entry.id)).length;
    // A small load window can make the folded recall the longer one; say so rather than print "-3% saved".
    const difference = snapshot.verbatimChars - snapshot.recallChars;
    const share = snapshot.verbatimChars > 0 ? Math.round((Math.abs(difference) / snapshot.verbatimChars) * 100) : 0;
    const comparison =
      difference === 0 ? 'the same size' : `${Math.abs(difference).toLocaleString('en')} chars (${share}%) ${difference > 0 ? 'less' : 'more'}`;
    views.turnSummary.replaceChildren(
      el(
        'dl',
        { class: 'turn-facts' },
        fact('Turn', String(snapshot.turn)),
        fact('Loaded', `${snapshot.loaded.length} entries`),
        fact('Recall', `${snapshot.recall.length} entries (${summariesInRecall} summar${summariesInRecall === 1 ? 'y' : 'ies'})`),
        fact('Hidden from recall', `${hiddenCount} loaded entr${hiddenCount === 1 ? 'y' : 'ies'}`),
        fact('Recall size', `${snapshot.recallChars.toLocaleString('en')} chars`),
        fact('Without the stage', `${snapshot.verbatimChars.toLocaleString('en')} chars`),
        fact('Against verbatim', comparison),
        snapshot.recallTokens === undefined ? null : fact('Recall tokens', snapshot.recallTokens.toLocaleString('en')),
        snapshot.recallTokens === undefined ? null : fact('Tokens without the stage', snapshot.verbatimTokens.toLocaleString('en')),
        snapshot.recallTokens === undefined ? null : fact('Tokens saved', tokensSaved(snapshot)),
        fact('Events', snapshot.events.length === 0 ? 'none' : snapshot.events.map((e) => eventKind(e.payload ?? {})).join(', ')),
      ),
    );
    setRunSummary(
      `Recall: ${snapshot.recall.length} entries (${summariesInRecall} summar${summariesInRecall === 1 ? 'y' : 'ies'}), ` +
        `${snapshot.recallChars.toLocaleString('en')} chars, ${difference === 0 ? 'the same as' : `${comparison} than`} verbatim.` +
        (snapshot.recallTokens === undefined ? '' : ` Tokens saved: ${tokensSaved(snapshot)}.`),
    );
    renderRecall(views.recall, snapshot, api);
    renderStore(views.store, simulation.store, snapshot.recall, api);
    const items = eventLogItems(snapshot);
    views.eventLog.prepend(...items.reverse());
    views.eventLogEmpty.hidden = views.eventLog.children.length > 0;
    drawChart();
    updateButtons();
  }

  /** "N (P%)" tokens the stage saved against the verbatim load; negative when recall is the larger. */
  function tokensSaved(snapshot) {
    const saved = snapshot.verbatimTokens - snapshot.recallTokens;
    const share = snapshot.verbatimTokens > 0 ? Math.round((saved / snapshot.verbatimTokens) * 100) : 0;
    return `${saved.toLocaleString('en')} (${share}%)`;
  }

  function reportProblems(snapshot) {
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

  function chartPoints() {
    return (state.simulation?.history ?? []).map((s) => ({ turn: s.turn, verbatimChars: s.verbatimChars, foldedChars: s.recallChars }));
  }

  function drawChart() {
    const points = chartPoints();
    const lastTurn = state.turns.length > 0 ? state.turns[state.turns.length - 1].turn : 1;
    drawRecallChart(views.chart, { points, lastTurn });
    views.chartDescription.textContent = describeRecallChart(points);
    views.chartTable.replaceChildren(
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Turn'), CHART_SERIES.map((s) => el('th', { scope: 'col' }, s.label)))),
      el('tbody', {}, points.map((p) => el('tr', {}, el('th', { scope: 'row' }, String(p.turn)), CHART_SERIES.map((s) => el('td', {}, p[s.key].toLocaleString('en')))))),
    );
  }

  // ---- wiring -------------------------------------------------------------

  /** Wraps a handler so that any failure becomes a notice and the controls come back. */
  const guarded = (handler) => async () => {
    try {
      await handler();
    } catch (error) {
      notify({ key: 'action', level: 'error', text: `Something went wrong: ${errorText(error)}` });
    } finally {
      updateButtons();
    }
  };

  controls.usePasted.addEventListener('click', guarded(usePasted));
  controls.loadSample.addEventListener('click', guarded(loadSample));
  controls.step.addEventListener('click', guarded(stepOnce));
  controls.run.addEventListener('click', guarded(runToEnd));
  controls.stop.addEventListener('click', () => {
    state.stopRequested = true;
  });
  controls.reset.addEventListener('click', guarded(resetReplay));
  controls.settings.addEventListener('change', guarded(onSettingsChanged));
  controls.summarizer.addEventListener('change', guarded(onSettingsChanged));
  // The controls are a form for grouping and labels only; never navigate away.
  form.addEventListener('submit', (event) => event.preventDefault());

  let redrawPending = false;
  new ResizeObserver(() => {
    if (redrawPending) return;
    redrawPending = true;
    requestAnimationFrame(() => {
      redrawPending = false;
      drawChart();
    });
  }).observe(views.chart.parentElement);

  // The editor is long; on a phone it starts folded so the results come sooner.
  controls.conversationEditor.open = window.matchMedia('(min-width: 900px)').matches;
  try {
    await loadSample();
  } catch (error) {
    controls.conversationStatus.textContent = 'The sample conversation could not be loaded; paste one instead.';
    notify({ key: 'sample', level: 'error', text: `The sample conversation could not be loaded: ${errorText(error)}` });
  }
  updateButtons();
}
