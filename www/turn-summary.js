// What one played turn did to recall, in the words two panels share: the
// Current turn facts and the Run panel's one-line summary.

import { el, eventKind, fact } from './render.js';

/** The figures both texts quote. */
export function turnFigures(snapshot, api) {
  const summariesInRecall = snapshot.recall.filter((entry) => api.isSummaryEntry(entry)).length;
  const recalledIds = new Set(snapshot.recall.map((entry) => entry.id));
  const hiddenCount = snapshot.loaded.filter((entry) => !recalledIds.has(entry.id)).length;
  // A small load window can make the folded recall the longer one; say so rather than print "-3% saved".
  const difference = snapshot.verbatimChars - snapshot.recallChars;
  const share = snapshot.verbatimChars > 0 ? Math.round((Math.abs(difference) / snapshot.verbatimChars) * 100) : 0;
  const comparison =
    difference === 0 ? 'the same size' : `${Math.abs(difference).toLocaleString('en')} chars (${share}%) ${difference > 0 ? 'less' : 'more'}`;
  return {
    recallEntries: `${snapshot.recall.length} entries (${summariesInRecall} summar${summariesInRecall === 1 ? 'y' : 'ies'})`,
    hiddenCount,
    difference,
    comparison,
  };
}

export function turnFacts(snapshot, figures) {
  const { recallEntries, hiddenCount, comparison } = figures;
  const counted = snapshot.recallTokens !== undefined;
  return el(
    'dl',
    { class: 'turn-facts' },
    fact('Turn', String(snapshot.turn)),
    fact('Loaded', `${snapshot.loaded.length} entries`),
    fact('Recall', recallEntries),
    fact('Hidden from recall', `${hiddenCount} loaded entr${hiddenCount === 1 ? 'y' : 'ies'}`),
    fact('Recall size', `${snapshot.recallChars.toLocaleString('en')} chars`),
    fact('Without the stage', `${snapshot.verbatimChars.toLocaleString('en')} chars`),
    fact('Against verbatim', comparison),
    counted ? fact('Recall tokens', snapshot.recallTokens.toLocaleString('en')) : null,
    counted ? fact('Tokens without the stage', snapshot.verbatimTokens.toLocaleString('en')) : null,
    counted ? fact('Tokens saved', tokensSaved(snapshot)) : null,
    fact('Events', snapshot.events.length === 0 ? 'none' : snapshot.events.map((e) => eventKind(e.payload ?? {})).join(', ')),
  );
}

export function runSummaryText(snapshot, figures) {
  const { recallEntries, difference, comparison } = figures;
  return (
    `Recall: ${recallEntries}, ` +
    `${snapshot.recallChars.toLocaleString('en')} chars, ${difference === 0 ? 'the same as' : `${comparison} than`} verbatim.` +
    (snapshot.recallTokens === undefined ? '' : ` Tokens saved: ${tokensSaved(snapshot)}.`)
  );
}

/** "N (P%)" tokens the stage saved against the verbatim load; negative when recall is the larger. */
function tokensSaved(snapshot) {
  const saved = snapshot.verbatimTokens - snapshot.recallTokens;
  const share = snapshot.verbatimTokens > 0 ? Math.round((saved / snapshot.verbatimTokens) * 100) : 0;
  return `${saved.toLocaleString('en')} (${share}%)`;
}
