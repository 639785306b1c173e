// The Current turn, Recall, Store and Event log panels: what the latest turn
// left, and every event so far, newest first.

import { el, eventLogItems, renderRecall, renderStore } from './render.js';

export function createResultsPanel($, api) {
  const turnSummary = $('turn-summary');
  const recall = $('recall');
  const store = $('store');
  const eventLog = $('event-log');
  const eventLogEmpty = $('event-log-empty');

  return {
    /** Before the first turn each panel says what will appear in it. */
    clear() {
      eventLog.replaceChildren();
      eventLogEmpty.hidden = false;
      turnSummary.replaceChildren(el('p', { class: 'muted' }, 'No turn played yet. Use Step one turn or Run to end.'));
      recall.replaceChildren(el('p', { class: 'muted' }, 'Nothing recalled yet.'));
      store.replaceChildren(el('p', { class: 'muted' }, 'The store is empty.'));
    },
    showTurnFacts(facts) {
      turnSummary.replaceChildren(facts);
    },
    showEntries(simulation, snapshot) {
      renderRecall(recall, snapshot, api);
      renderStore(store, simulation.store, snapshot.recall, api);
      const items = eventLogItems(snapshot);
      eventLog.prepend(...items.reverse());
      eventLogEmpty.hidden = eventLog.children.length > 0;
    },
  };
}
