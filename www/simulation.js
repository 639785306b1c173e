// The conversation, replayed turn by turn through one summarize stage.
//
// Each step plays what a memory-backed agent does around one turn:
//   1. the turn's messages are written to the store (the agent's memory write);
//   2. the memory read the next request makes: load the N most recent entries
//      of the store (originals and summaries alike, oldest first), then
//      `stage.fold(loaded, identity)`;
//   3. a summary the fold writes back lands in the store through `store.put`,
//      so later loads read it instead of paying for it again.
// No DOM here: the page renders the snapshots this produces.

const PLAYGROUND_IDENTITY = Object.freeze({ tenant: 'playground', conversationId: 'support-case-LD-48213' });

// A fixed, plausible clock: the conversation starts on a March morning and each
// turn takes a few minutes. Fixed so that two runs of the page agree exactly.
const CONVERSATION_START_MS = Date.UTC(2025, 2, 3, 9, 0, 0);
const TURN_SPACING_MS = 4 * 60_000;
const MESSAGE_SPACING_MS = 30_000;

function contentChars(entries) {
  return entries.reduce((sum, entry) => sum + (entry.value?.content?.length ?? 0), 0);
}

function contentTokens(entries, countTokens) {
  return entries.reduce((sum, entry) => sum + (typeof entry.value?.content === 'string' ? countTokens(entry.value.content) : 0), 0);
}

/**
 * The in-page memory store: originals in write order, and summaries by id (a
 * second write of the same id replaces the first, as a keyed store would).
 */
class PlaygroundStore {
  constructor() {
    this.originals = [];
    this.summaries = new Map();
    this.writeOrder = new Map();
    this.writes = 0;
  }

  writeOriginal(entry) {
    this.originals.push(entry);
    this.writeOrder.set(entry, this.writes++);
  }

  /** The `store.put` the stage's config receives. */
  put = async (_identity, entry) => {
    this.summaries.set(entry.id, entry);
    this.writeOrder.set(entry, this.writes++);
  };

  /** Every entry, oldest first by `updatedAt`; ties keep write order. */
  all() {
    return [...this.originals, ...this.summaries.values()].sort(
      (a, b) => a.updatedAt - b.updatedAt || this.writeOrder.get(a) - this.writeOrder.get(b),
    );
  }

  /** What a `loadRecent({ count })` returns: the `count` newest entries, oldest first. */
  loadRecent(count) {
    const all = this.all();
    return all.slice(Math.max(0, all.length - count));
  }

  /** The same read as if no summary had ever been written: what recall is without the stage. */
  loadRecentOriginals(count) {
    return this.originals.slice(Math.max(0, this.originals.length - count));
  }
}

export class ConversationSimulation {
  /**
   * @param {object} options
   * @param {Array<{turn:number, messages:Array<{id,role,content}>}>} options.turns
   * @param {(store: PlaygroundStore, now: () => number) => {fold: Function}} options.buildStage
   *        builds the stage for a config the page assembled; may throw (the
   *        package refuses a bad config at build time).
   * @param {number} options.loadCount how many recent entries each read loads.
   * @param {(text: string) => number} [options.countTokens] the stage's token
   *        counter: snapshots then count recall in tokens too.
   */
  constructor({ turns, buildStage, loadCount, countTokens }) {
    this.turns = turns;
    this.loadCount = loadCount;
    this.countTokens = countTokens;
    this.store = new PlaygroundStore();
    this.clockMs = CONVERSATION_START_MS;
    this.history = [];
    this.stage = buildStage(this.store, () => this.clockMs);
  }

  get stepsTaken() {
    return this.history.length;
  }

  get finished() {
    return this.stepsTaken >= this.turns.length;
  }

  get latest() {
    return this.history[this.history.length - 1];
  }

  /** Plays the next turn and returns its snapshot. */
  async step() {
    if (this.finished) throw new Error('The conversation has no more turns.');
    const { turn, messages } = this.turns[this.stepsTaken];
    const turnStartMs = CONVERSATION_START_MS + this.stepsTaken * TURN_SPACING_MS;
    messages.forEach((message, index) => {
      this.store.writeOriginal(memoryEntry(message, turn, turnStartMs + index * MESSAGE_SPACING_MS));
    });
    this.clockMs = turnStartMs + messages.length * MESSAGE_SPACING_MS;

    const loaded = this.store.loadRecent(this.loadCount);
    const verbatim = this.store.loadRecentOriginals(this.loadCount);
    const snapshot = {
      turn,
      step: this.stepsTaken + 1,
      loaded,
      verbatimChars: contentChars(verbatim),
      recall: loaded,
      recallChars: contentChars(loaded),
      events: [],
      foldError: undefined,
    };
    try {
      const { recall, events } = await this.stage.fold(loaded, PLAYGROUND_IDENTITY);
      snapshot.recall = recall;
      snapshot.recallChars = contentChars(recall);
      snapshot.events = events;
    } catch (error) {
      // The contract says a fold never rejects; if it does, the turn still
      // happened and the agent would have been served the unfolded load.
      snapshot.foldError = error;
    }
    if (this.countTokens) {
      snapshot.recallTokens = contentTokens(snapshot.recall, this.countTokens);
      snapshot.verbatimTokens = contentTokens(verbatim, this.countTokens);
    }
    this.history.push(snapshot);
    return snapshot;
  }
}

function memoryEntry(message, turn, atMs) {
  return {
    id: message.id,
    value: { role: message.role, content: message.content },
    version: 1,
    createdAt: atMs,
    updatedAt: atMs,
    lastAccessedAt: atMs,
    accessCount: 0,
    tier: 'hot',
    source: { turn, identity: PLAYGROUND_IDENTITY },
  };
}
