// DOM rendering of a simulation snapshot: recall, store and event log.
// Every piece of conversation text goes in through textContent, never as
// markup: a pasted conversation is data, not HTML.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const chars = (n) => `${n.toLocaleString('en')} char${n === 1 ? '' : 's'}`;
const entryCount = (n) => (n === 1 ? '1 entry' : `${n} entries`);

function coverageRange(coverage) {
  return coverage.fromTurn === coverage.toTurn ? `turn ${coverage.fromTurn}` : `turns ${coverage.fromTurn}–${coverage.toTurn}`;
}

/** The recall, in the order the agent receives it: summaries first, then the verbatim tail. */
export function renderRecall(container, snapshot, api) {
  const summaries = snapshot.recall.filter((entry) => api.isSummaryEntry(entry));
  const verbatim = snapshot.recall.filter((entry) => !api.isSummaryEntry(entry));
  const nodes = [];
  if (summaries.length > 0) {
    nodes.push(el('h3', { class: 'list-heading' }, `Summaries (${summaries.length})`));
    nodes.push(el('ol', { class: 'entries' }, summaries.map((entry) => summaryCard(entry, api))));
  }
  nodes.push(el('h3', { class: 'list-heading' }, `Verbatim (${verbatim.length})`));
  nodes.push(
    verbatim.length > 0
      ? el('ol', { class: 'entries' }, verbatim.map((entry) => messageCard(entry, 'recall-verbatim')))
      : el('p', { class: 'muted' }, 'No verbatim entries.'),
  );
  container.replaceChildren(...nodes);
}

function summaryCard(entry, api) {
  const coverage = api.summaryCoverage(entry);
  return el(
    'li',
    {
      class: 'entry entry-summary',
      'data-summary-id': entry.id,
      'data-from-turn': coverage.fromTurn,
      'data-to-turn': coverage.toTurn,
      'data-entry-count': coverage.entryCount,
    },
    el(
      'div',
      { class: 'entry-meta' },
      el('span', { class: 'badge badge-summary' }, 'summary'),
      el('strong', { class: 'coverage' }, coverageRange(coverage)),
      el('span', {}, `${entryCount(coverage.entryCount)} folded`),
      el('span', { class: 'muted' }, `${entry.id} · tier ${entry.tier} · ${chars(entry.value.content.length)}`),
    ),
    el('p', { class: 'entry-content' }, entry.value.content),
    coverage.droppedDetails?.length
      ? el('p', { class: 'lost-details' }, `Lost details: ${coverage.droppedDetails.join(', ')}`)
      : null,
  );
}

function messageCard(entry, extraClass) {
  const turn = entry.source?.turn;
  return el(
    'li',
    { class: `entry ${extraClass}`, 'data-entry-id': entry.id },
    el(
      'div',
      { class: 'entry-meta' },
      el('span', { class: `badge badge-role badge-${entry.value.role}` }, entry.value.role),
      turn !== undefined ? el('span', {}, `turn ${turn}`) : null,
      el('span', { class: 'muted' }, `${entry.id} · ${chars(entry.value.content?.length ?? 0)}`),
    ),
    el('p', { class: 'entry-content' }, entry.value.content ?? ''),
  );
}

/** The store: summaries, then every original, with the covered ones marked. */
export function renderStore(container, store, recall, api) {
  const summaries = [...store.summaries.values()];
  const coveredBy = new Map();
  for (const summary of summaries) {
    for (const id of api.summaryCoverage(summary)?.coveredIds ?? []) coveredBy.set(id, summary.id);
  }
  const inRecall = new Set(recall.map((entry) => entry.id));
  const coveredCount = store.originals.filter((entry) => coveredBy.has(entry.id)).length;

  const summaryList =
    summaries.length > 0
      ? el(
          'ul',
          { class: 'store-list' },
          summaries.map((summary) => {
            const coverage = api.summaryCoverage(summary);
            return el(
              'li',
              { class: 'store-item store-summary', 'data-summary-id': summary.id },
              el('span', { class: 'badge badge-summary' }, 'summary'),
              el('span', {}, `${summary.id}: ${coverageRange(coverage)}, ${entryCount(coverage.entryCount)}`),
              el('span', { class: 'muted' }, inRecall.has(summary.id) ? 'in recall' : 'not loaded'),
            );
          }),
        )
      : el('p', { class: 'muted' }, 'No summaries written yet.');

  const originalList = el(
    'ol',
    { class: 'store-list store-originals' },
    store.originals.map((entry) => {
      const coveringSummary = coveredBy.get(entry.id);
      const state = coveringSummary ? `covered by ${coveringSummary}` : inRecall.has(entry.id) ? 'in recall' : 'not loaded';
      return el(
        'li',
        { class: `store-item${coveringSummary ? ' store-covered' : ''}`, 'data-entry-id': entry.id, 'data-covered-by': coveringSummary },
        el('span', { class: `badge badge-role badge-${entry.value.role}` }, entry.value.role),
        el('span', { class: 'store-id' }, entry.id),
        el('span', { class: 'store-text', title: entry.value.content }, entry.value.content),
        el('span', { class: coveringSummary ? 'state state-covered' : 'state muted' }, state),
      );
    }),
  );

  container.replaceChildren(
    el('h3', { class: 'list-heading' }, `Summaries (${summaries.length})`),
    summaryList,
    el('h3', { class: 'list-heading' }, `Originals (${store.originals.length}, ${coveredCount} covered)`),
    el('p', { class: 'muted small' }, 'Originals are never deleted: a summary only hides them from recall while it is loaded.'),
    el('div', { class: 'scroll-box', tabindex: '0', role: 'region', 'aria-label': 'Original entries in the store' }, originalList),
  );
}

/** One log item per event, for the turn it happened on. */
export function eventLogItems(snapshot) {
  const items = snapshot.events.map((event) => eventItem(snapshot.turn, event));
  if (snapshot.foldError) {
    items.push(
      el(
        'li',
        { class: 'event event-failure', 'data-turn': snapshot.turn },
        el('div', { class: 'event-head' }, el('span', { class: 'badge badge-failure' }, 'error'), el('strong', {}, `Turn ${snapshot.turn}`)),
        el('p', { class: 'event-reason' }, `stage.fold rejected: ${errorText(snapshot.foldError)}. Recall shown unfolded.`),
      ),
    );
  }
  return items;
}

export function eventKind(payload) {
  const reason = payload.reason ?? '';
  if (reason.startsWith('folded')) return 'fold';
  if (payload.scoreEvidence?.failed || reason.includes('FAILED') || reason.startsWith('invalid-input')) return 'failure';
  if (reason.includes('already covered')) return 'covered';
  return 'declined';
}

function eventItem(turn, event) {
  const payload = event.payload ?? {};
  const kind = eventKind(payload);
  const evidence = payload.scoreEvidence ?? {};
  return el(
    'li',
    { class: `event event-${kind}`, 'data-turn': turn, 'data-kind': kind },
    el(
      'div',
      { class: 'event-head' },
      el('span', { class: `badge badge-${kind}` }, kind),
      el('strong', {}, `Turn ${turn}`),
      el('span', { class: 'muted' }, event.type),
    ),
    el('p', { class: 'event-reason' }, payload.reason ?? '(no reason)'),
    kind === 'fold' ? foldDetails(evidence) : null,
    el(
      'dl',
      { class: 'event-facts' },
      fact('entries', `${payload.inputMemoryCount} in → ${payload.outputMemoryCount} out`),
      fact('dropped', idList(payload.droppedIds)),
      fact('added', idList(payload.addedIds)),
      Object.entries(evidence).map(([key, value]) => fact(key, formatEvidence(value))),
    ),
  );
}

/** What a fold's summary kept of its span's exact details, and what it dropped. */
function foldDetails(evidence) {
  const { detailsFound: found = 0, detailsKept: kept = 0, detailsPinned: pinned, droppedDetails: dropped = [] } = evidence;
  const droppedCount = evidence.droppedDetailCount ?? dropped.length;
  const listed = pinned === undefined ? '' : `, ${pinned} on the keepDetails line`;
  const more = droppedCount > dropped.length ? ` and ${droppedCount - dropped.length} more` : '';
  return el(
    'div',
    {
      class: 'fold-details',
      'data-found': found,
      'data-kept': kept,
      'data-pinned': pinned ?? 0,
      'data-dropped': droppedCount,
    },
    el('p', {}, `Exact details: ${kept + (pinned ?? 0)} of ${found} kept by the summary${listed}.`),
    el('p', { class: droppedCount ? 'lost-details' : 'muted' }, droppedCount ? `Dropped: ${dropped.join(', ')}${more}.` : 'Dropped: none.'),
  );
}

export function fact(name, value) {
  return el('div', { class: 'fact' }, el('dt', {}, name), el('dd', {}, value));
}

function idList(ids = []) {
  if (ids.length === 0) return 'none';
  if (ids.length <= 3) return ids.join(', ');
  return `${ids.length} ids (${ids[0]} … ${ids[ids.length - 1]})`;
}

function formatEvidence(value) {
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

export function errorText(error) {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
