// The JS half of the bindings layer. Each function here is one JS↔Wasm
// crossing that does a whole job on the JS side: walking recall once, packing
// what Rust needs into typed arrays, or building the plain objects Rust
// decided on. Reading a field from Rust costs a crossing per field per entry;
// reading it here costs a property load.
//
// What lives here: reading and shape-checking entries (SPEC §8 names the
// shapes), calling the user's summarizer and store, and describing what was
// found. What does not: which entries stay, which span folds, when a call is
// worth making, and every format and event sentence; those are in src/core.
//
// Every function Rust calls is total: it returns, never throws. An exception
// thrown into Wasm would skip the Rust code after the call (a single-flight
// entry left registered, a turn that never resolves), so user data that
// throws (getters, proxies, objects without a prototype) is caught here and
// reported as a value.

// Per-entry facts, STRIDE numbers each (see `EntryFacts` in src/core/recall.rs;
// must match the constants in src/bindings/stage.rs).
const STRIDE = 5;
const HAS_TURN = 1;
const HAS_UPDATED_AT = 2;
const IS_SUMMARY = 4;
const COVERED = 8;
// In text lengths: this string was not sent (`assembleTranscript` splices it
// in), or this entry has no role. Must match `NOT_SENT` and `NO_ROLE` in
// stage.rs.
const NOT_SENT = 0xffffffff;
const NO_ROLE = 0xfffffffe;
// In recall slots: the new summary entry. Must match `NEW_SUMMARY_SLOT` in
// src/core/decision.rs.
const NEW_SUMMARY_SLOT = 0xffffffff;

// One facts buffer reused across recalls (passing it to `run`/`fold` copies
// it into Wasm before anything else runs); a read that re-enters the stage
// from a getter gets its own.
let scratch = new Float64Array(0);
let reading = false;

/** SPEC §1 `summaryCoverage`: the stored coverage object, or undefined. */
export function coverageOf(entry) {
  try {
    return typeof entry === 'object' && entry !== null ? coverageIn(entry.metadata) : undefined;
  } catch {
    return undefined;
  }
}

/** The coverage object in an entry's `metadata`, or undefined. May throw (getters). */
function coverageIn(metadata) {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const coverage = metadata.summarizes;
  if (typeof coverage !== 'object' || coverage === null || !Array.isArray(coverage.coveredIds)) return undefined;
  return coverage;
}

/** A short, safe description of any value for messages: `a number (42)`. */
export function describe(value) {
  try {
    switch (typeof value) {
      case 'undefined':
        return 'undefined';
      case 'string':
        return `a string (${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)})`;
      case 'number':
      case 'bigint':
      case 'boolean':
        return `a ${typeof value} (${String(value)})`;
      case 'symbol':
        return `a symbol (${value.description ?? ''})`;
      case 'function':
        return 'a function';
      default:
        if (value === null) return 'null';
        if (Array.isArray(value)) return `an array (length ${value.length})`;
        if (value instanceof Map) return 'a Map';
        return 'an object';
    }
  } catch {
    return 'an unreadable value';
  }
}

/** What an exception says: its message when it is an Error, else its description. */
export function causeOf(error) {
  try {
    if (error instanceof Error) return error.message || error.name;
    return typeof error === 'string' ? error : describe(error);
  } catch {
    return 'an unprintable error';
  }
}

const NO_FACTS = new Float64Array(0);

class RecallRead {
  constructor(snapshot) {
    this.snapshot = snapshot;
    this.identity = undefined;
    this.facts = NO_FACTS;
    /** Every entry's id as validated (packed reads only): later steps use these, never an `id` getter again. */
    this.ids = undefined;
    this.summaryCount = 0;
    this.invalid = undefined;
    this.keyLengths = undefined;
    this.keyText = undefined;
    this.textLengths = undefined;
    this.spanTexts = undefined;
  }
  /** Valid, and no facts were needed: recall stays as read, with no event. */
  get changesNothing() {
    return this.invalid === undefined && this.facts.length === 0;
  }
  /** -1 for invalid input, else the number of entries: validity and length in one number (`run`/`fold` take it). */
  get status() {
    return this.invalid === undefined ? this.snapshot.length : -1;
  }
  get length() {
    return this.snapshot.length;
  }
  reject(index, field, found, expected) {
    this.invalid = { index, field, found, expected };
    return this;
  }
}

const RECALL_EXPECTED = 'an array of memory entries, or undefined';

/** `scope.identity` and `scope.loaded`, each read once, then `readRecall`. */
function readScope(scope, factsFrom) {
  // Identity first: a getter that re-enters the stage must not run between
  // filling the shared facts buffer and Rust copying it out.
  let identity;
  try {
    identity = scope.identity;
  } catch {
    // An unreadable identity is no identity: the key and the write go without it.
  }
  let loaded;
  try {
    loaded = scope.loaded;
  } catch (error) {
    return new RecallRead([]).reject(-1, 'loaded', `unreadable (reading it threw: ${causeOf(error)})`, RECALL_EXPECTED);
  }
  const read = readRecall(loaded, factsFrom);
  read.identity = identity;
  return read;
}

/**
 * SPEC §4 step 1: snapshot recall ONCE by iteration (footprintjs hands out
 * live element proxies on index reads), validate it (SPEC §8), and pack the
 * facts, including whether a summary's `coveredIds` names the entry: ids are
 * matched here, where they live, instead of being copied into Wasm. On
 * invalid input, `invalid` names the first offending spot.
 *
 * `factsFrom` is the core's word on when facts matter with no summary in
 * recall (`facts_needed_from`): below it every entry is still validated, but
 * nothing is packed unless a summary turns up.
 */
function readRecall(loaded, factsFrom) {
  if (loaded === undefined || loaded === null) return new RecallRead([]);
  if (!Array.isArray(loaded)) return new RecallRead([]).reject(-1, 'loaded', describe(loaded), RECALL_EXPECTED);
  let snapshot;
  try {
    snapshot = Array.from(loaded);
  } catch (error) {
    return new RecallRead([]).reject(-1, 'loaded', `unreadable (iterating it threw: ${causeOf(error)})`, RECALL_EXPECTED);
  }
  const read = new RecallRead(snapshot);
  const n = snapshot.length;
  if (n < factsFrom && readEntries(read, undefined) !== true) return read;
  const shared = !reading;
  if (shared && scratch.length < n * STRIDE) scratch = new Float64Array(Math.max(n * STRIDE, 2 * scratch.length));
  const facts = shared ? scratch : new Float64Array(n * STRIDE);
  reading = true;
  try {
    readEntries(read, facts);
  } finally {
    if (shared) reading = false;
  }
  if (read.invalid === undefined) read.facts = facts.subarray(0, n * STRIDE);
  return read;
}

/**
 * Validates every entry and, given `facts`, packs them. Without `facts` it
 * stops at the first summary and returns true: the caller packs after all.
 * The checks are written out inline: this loop is most of a visit's cost.
 */
function readEntries(read, facts) {
  const snapshot = read.snapshot;
  const pack = facts !== undefined;
  // The ids as validated: read once, so no id getter ever runs again.
  const ids = pack ? new Array(snapshot.length) : undefined;
  let coveredIdLists;
  let i = 0;
  try {
    for (; i < snapshot.length; i++) {
      const entry = snapshot[i];
      if (typeof entry !== 'object' || entry === null) {
        return read.reject(i, 'entry', describe(entry), 'a memory entry object');
      }
      const id = entry.id;
      if (typeof id !== 'string') return read.reject(i, 'id', describe(id), 'a string');
      if (pack) ids[i] = id;
      const value = entry.value;
      if (typeof value !== 'object' || value === null) {
        return read.reject(i, 'value', describe(value), 'an object with a `content`');
      }
      const content = value.content;
      let units = 0;
      if (typeof content === 'string') units = content.length;
      else if (content !== undefined && content !== null) {
        return read.reject(i, 'value.content', describe(content), 'a string, null or absent');
      }
      const at = i * STRIDE;
      let flags = 0;
      const source = entry.source;
      if (typeof source === 'object' && source !== null) {
        const turn = source.turn;
        // `x - x === 0` is Number.isFinite for a number, without the call.
        if (typeof turn === 'number' && turn - turn === 0) {
          flags = HAS_TURN;
          if (pack) facts[at + 1] = turn;
        } else if (turn !== undefined && turn !== null) {
          return read.reject(i, 'source.turn', describe(turn), 'a finite number or absent');
        }
      }
      const updatedAt = entry.updatedAt;
      if (typeof updatedAt === 'number' && updatedAt - updatedAt === 0) {
        flags |= HAS_UPDATED_AT;
        if (pack) facts[at + 2] = updatedAt;
      } else if (updatedAt !== undefined && updatedAt !== null) {
        return read.reject(i, 'updatedAt', describe(updatedAt), 'a finite number or absent');
      }
      const coverage = coverageIn(entry.metadata);
      if (coverage !== undefined) {
        if (!pack) return true;
        flags |= IS_SUMMARY;
        read.summaryCount++;
        const toTurn = coverage.toTurn;
        facts[at + 4] = typeof toTurn === 'number' && toTurn - toTurn === 0 ? toTurn : 0;
        // A plain copy: an exotic array (a Proxy) runs its traps here, where
        // a throw is this entry's, and nothing after this can throw.
        (coveredIdLists ??= []).push(Array.prototype.slice.call(coverage.coveredIds));
      }
      if (pack) {
        facts[at + 3] = units;
        facts[at] = flags;
      }
    }
    if (coveredIdLists !== undefined) markCovered(ids, facts, coveredIdLists);
    if (pack) read.ids = ids;
  } catch (error) {
    read.reject(i, 'entry', `unreadable (reading it threw: ${causeOf(error)})`, 'a plain memory entry');
  }
  return false;
}

/**
 * Sets COVERED on every entry that is not a summary and whose id (`ids`, as
 * read) some summary's `coveredIds` (copied, plain arrays) lists: membership, exactly as a Set of all listed
 * ids would decide it, for less. Stores load recall in order and summaries
 * list ids in order, so one forward walk per list finds most entries with
 * plain comparisons. What no walk matched (the recent tail, duplicates, ids
 * listed out of order) is then checked against the lists by hashing the
 * smaller side. A walk gives up once it has scanned a few times the recall
 * without matching, so lists of ids mostly absent from recall cost about
 * what a Set of them would.
 */
function markCovered(ids, facts, lists) {
  const n = ids.length;
  let listed = 0;
  let budget = 4 * n + 64;
  for (const list of lists) {
    listed += list.length;
    let cursor = 0;
    for (let k = 0; k < list.length && budget > 0; k++) {
      const id = list[k];
      if (typeof id !== 'string') continue;
      let j = cursor;
      while (j < n && ((facts[j * STRIDE] & IS_SUMMARY) !== 0 || ids[j] !== id)) j++;
      budget -= j - cursor;
      if (j < n) {
        facts[j * STRIDE] |= COVERED;
        cursor = j + 1;
      }
    }
  }
  const unmatched = [];
  for (let j = 0; j < n; j++) {
    if ((facts[j * STRIDE] & (IS_SUMMARY | COVERED)) === 0) unmatched.push(j);
  }
  if (unmatched.length === 0) return;
  if (unmatched.length * listed <= 256) {
    // Little work left (short recalls): plain comparisons beat hashing.
    for (const j of unmatched) {
      const id = ids[j];
      search: for (const list of lists) {
        for (let k = 0; k < list.length; k++) {
          if (list[k] === id) {
            facts[j * STRIDE] |= COVERED;
            break search;
          }
        }
      }
    }
    return;
  }
  if (unmatched.length <= listed) {
    // Few left (the usual recent tail): look each listed id up among them.
    const waiting = new Map();
    for (const j of unmatched) {
      const id = ids[j];
      const same = waiting.get(id);
      if (same === undefined) waiting.set(id, [j]);
      else same.push(j);
    }
    for (const list of lists) {
      for (let k = 0; k < list.length; k++) {
        const same = waiting.get(list[k]);
        if (same === undefined) continue;
        for (const j of same) facts[j * STRIDE] |= COVERED;
        waiting.delete(list[k]);
        if (waiting.size === 0) return;
      }
    }
    return;
  }
  const covered = new Set();
  for (const list of lists) {
    for (let k = 0; k < list.length; k++) covered.add(list[k]);
  }
  for (const j of unmatched) if (covered.has(ids[j])) facts[j * STRIDE] |= COVERED;
}

const utf8 = new TextEncoder();

/**
 * The span key's text: the identity key, then the span's ids (as read),
 * joined, with each part's UTF-16 length. Kept on `read` for
 * `encodeSpanKey`; returns the text's UTF-16 length.
 */
export function readSpanKey(read, key, span) {
  const lengths = new Uint32Array(span.length + 1);
  lengths[0] = key.length;
  let joined = key;
  for (let k = 0; k < span.length; k++) {
    const id = read.ids[span[k]];
    lengths[k + 1] = id.length;
    joined += id;
  }
  read.keyLengths = lengths;
  // UTF-8 would turn every lone surrogate into U+FFFD, so two ids that
  // differ only there would share a key: such text is keyed by its code
  // units instead (the lengths still name the original parts).
  read.keyText = hasLoneSurrogate(joined) ? codeUnitsOf(joined) : joined;
  return read.keyText.length;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hasLoneSurrogate(text) {
  return typeof text.isWellFormed === 'function' ? !text.isWellFormed() : LONE_SURROGATE.test(text);
}

/** Each UTF-16 code unit as four hex digits: ASCII, and one-to-one. */
function codeUnitsOf(text) {
  let units = '';
  for (let k = 0; k < text.length; k++) units += text.charCodeAt(k).toString(16).padStart(4, '0');
  return units;
}

/**
 * Writes the span key's lengths and its text's UTF-8 straight into Wasm
 * memory (`bytes` and `lengths` are views of it): one native encode, no copy
 * in between. Runs no user code, so the views stay valid. Returns the bytes
 * written, or -1 when `bytes` is too small for the whole text.
 */
export function encodeSpanKey(read, bytes, lengths) {
  lengths.set(read.keyLengths);
  const { read: units, written } = utf8.encodeInto(read.keyText, bytes);
  return units === read.keyText.length ? written : -1;
}

/**
 * Each span entry's role and content, as the texts `assembleTranscript`
 * splices in, in `spanTexts` (role, content, role, …). Only a text that
 * holds `<<<` (it may hold marker text the core must defang) is returned, in
 * order, for the core to write; `textLengths` says, per text, its length
 * when returned, `NOT_SENT` when it is spliced, or `NO_ROLE`. Undefined when
 * an entry can no longer be read.
 */
export function readSpanText(read, span) {
  try {
    const lengths = new Uint32Array(span.length * 2);
    const texts = new Array(span.length * 2);
    let written = '';
    for (let k = 0; k < span.length; k++) {
      const value = read.snapshot[span[k]].value;
      const role = value.role === undefined || value.role === null ? undefined : String(value.role);
      const content = typeof value.content === 'string' ? value.content : '';
      texts[2 * k] = role;
      texts[2 * k + 1] = content;
      if (role === undefined) lengths[2 * k] = NO_ROLE;
      else if (role.includes('<<<')) {
        lengths[2 * k] = role.length;
        written += role;
      } else lengths[2 * k] = NOT_SENT;
      if (content.includes('<<<')) {
        lengths[2 * k + 1] = content.length;
        written += content;
      } else lengths[2 * k + 1] = NOT_SENT;
    }
    read.textLengths = lengths;
    read.spanTexts = texts;
    return written;
  } catch {
    return undefined;
  }
}

/** The transcript: the core's text with each spliced text inserted (the very
 * strings `readSpanText` checked, not a second read of the entries). */
export function assembleTranscript(read, text, splices) {
  let transcript = '';
  let at = 0;
  for (let k = 0; k < splices.length; k += 2) {
    const offset = splices[k];
    transcript += text.slice(at, offset) + read.spanTexts[splices[k + 1]];
    at = offset;
  }
  return transcript + text.slice(at);
}

/**
 * A stable key for the identity: same conversation, same key. Read when a
 * visit considers a fold, so a caller who later changes the identity object
 * cannot change what an earlier visit is keyed by. Each form starts
 * differently (`#` or a type name), so two forms never share a key.
 * Undefined for an identity that cannot be told apart by its text (a symbol,
 * a function, an object that throws when read): no later visit can be known
 * to be the same conversation, so its visit joins no call and latches
 * nothing.
 */
export function identityKey(identity) {
  switch (typeof identity) {
    case 'string':
      return `string:${identity}`;
    case 'undefined':
      return 'undefined';
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof identity}:${String(identity)}`;
    case 'object':
      if (identity === null) return 'null';
      try {
        const { tenant, principal, conversationId } = identity;
        return `#${keyPart(tenant)}${keyPart(principal)}${keyPart(conversationId)}`;
      } catch {
        return undefined;
      }
    default:
      return undefined;
  }
}

/**
 * One part of an object identity: its type, then its text's length and the
 * text, so parts cannot run together and `7` is not `'7'`. Null counts as
 * absent. Throws for a part with no text of its own (a symbol, a function,
 * an object JSON cannot write); the identity then has no key.
 */
function keyPart(part) {
  switch (typeof part) {
    case 'string':
      return `s${part.length}:${part}`;
    case 'undefined':
      return '-';
    case 'number':
    case 'boolean':
    case 'bigint': {
      const text = String(part);
      return `${typeof part}${text.length}:${text}`;
    }
    case 'object': {
      if (part === null) return '-';
      const text = JSON.stringify(part);
      if (typeof text !== 'string') throw new TypeError('an identity part JSON cannot write');
      return `o${text.length}:${text}`;
    }
    default:
      throw new TypeError(`an identity part of type ${typeof part}`);
  }
}

/**
 * Runs `start(signal)` under an optional deadline. Never rejects: resolves to
 * `{ ok, text, usage, cause }`. Past the deadline the signal is aborted and a
 * late answer is ignored. Whatever `start` and `readText` throw, at once or
 * later, becomes a failed outcome.
 */
function underDeadline(start, timeoutMs, readText) {
  const read = (value) => {
    try {
      return readText(value);
    } catch (error) {
      return failedOutcome(error);
    }
  };
  const controller = timeoutMs === undefined ? undefined : new AbortController();
  const answer = settleCall(() => start(controller?.signal), read);
  // No deadline: one reaction on the call, without an async frame around it.
  if (controller === undefined) return answer;
  let timer;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(() => {
      const error = new Error(`timed out after ${timeoutMs} ms`);
      controller.abort(error);
      resolve(failedOutcome(error));
    }, timeoutMs);
  });
  // Both are this file's own promises, which never reject.
  return PROMISE_THEN.call(Promise.race([answer, deadline]), (outcome) => {
    clearTimeout(timer);
    return outcome;
  });
}

/**
 * `onValue(what call() resolves to)`, or a failed outcome if `call` throws
 * or its answer rejects, treating the answer as `await` does: a real promise
 * is followed through its built-in reaction, never through a `then` (or
 * `constructor`) of its own, so user code cannot take over or throw out of
 * the reaction; anything else is resolved as a thenable. The result is a
 * plain promise of this realm that never rejects.
 */
function settleCall(call, onValue) {
  let promise;
  try {
    promise = PROMISE_RESOLVE(call());
  } catch (error) {
    return PROMISE_RESOLVE(failedOutcome(error));
  }
  if (Object.getPrototypeOf(promise) === Promise.prototype && !Object.hasOwn(promise, 'constructor')) {
    return PROMISE_THEN.call(promise, onValue, failedOutcome);
  }
  // A promise with an own `constructor` (which `then` would read for its
  // species): let `await` follow it, exactly.
  return (async () => {
    let value;
    try {
      value = await promise;
    } catch (error) {
      return failedOutcome(error);
    }
    return onValue(value);
  })();
}

const PROMISE_RESOLVE = Promise.resolve.bind(Promise);
const PROMISE_THEN = Promise.prototype.then;

function failedOutcome(error) {
  return { ok: false, cause: causeOf(error) };
}

function textOutcome(text, usage) {
  if (typeof text !== 'string') {
    return { ok: false, cause: `the summarizer returned ${describe(text)} instead of a string` };
  }
  return { ok: true, text, usage };
}

/** The provider shape: one `complete` call with the transcript as data. */
export function callProvider(llm, systemPrompt, transcript, model, timeoutMs) {
  return underDeadline(
    (signal) => {
      const request = { systemPrompt, messages: [{ role: 'user', content: transcript }], model };
      if (signal !== undefined) request.signal = signal;
      return llm.complete(request);
    },
    timeoutMs,
    (response) => {
      if (typeof response !== 'object' || response === null) {
        return { ok: false, cause: `the provider resolved to ${describe(response)} instead of a response object` };
      }
      const usage = response.usage;
      const reported =
        typeof usage === 'object' && usage !== null
          ? {
              input: Number.isFinite(usage.input) ? usage.input : undefined,
              output: Number.isFinite(usage.output) ? usage.output : undefined,
            }
          : undefined;
      return textOutcome(response.content, reported);
    },
  );
}

/** The callback shape: the span's own value objects after the instruction. */
export function callCallback(llm, systemPrompt, read, span, timeoutMs) {
  return underDeadline(
    () => {
      const messages = [{ role: 'system', content: systemPrompt }];
      for (const index of span) messages.push(read.snapshot[index].value);
      return llm(messages);
    },
    timeoutMs,
    (text) => textOutcome(text, undefined),
  );
}

/** store.put(identity, entry); never rejects. */
export function putEntry(store, identity, entry) {
  return settleCall(() => store.put(identity, entry), () => ({ ok: true }));
}

/** The ids (as read) of the entries at `indices` (a view into Wasm memory). */
function idsAt(read, indices) {
  const ids = new Array(indices.length);
  for (let k = 0; k < indices.length; k++) ids[k] = read.ids[indices[k]];
  return ids;
}

/**
 * `pieces` (a core `NumberedText`) with `numbers` written in between, as
 * `String(n)` writes them: the core measured the text the same way.
 */
function numberedText(pieces, numbers) {
  let text = pieces[0];
  for (let k = 1; k < pieces.length; k++) text += String(numbers[k - 1]) + pieces[k];
  return text;
}

/**
 * The summary entry and its coverage, in SPEC §2 key order. Its id and the
 * header before the summary text (the label and its separator) are written
 * from the core's pieces, so no per-fold text crosses from Wasm. Undefined
 * when the first span entry's `source` can no longer be read (the ids are
 * the ones read with recall).
 */
export function summaryEntry(read, span, idPieces, headerPieces, text, fromTurn, toTurn, anchor, now, ttlMs, tier, model) {
  try {
    const id = numberedText(idPieces, [fromTurn, toTurn]);
    const header = numberedText(headerPieces, [fromTurn, toTurn, span.length]);
    const coveredIds = idsAt(read, span);
    const coverage =
      model === undefined
        ? { fromTurn, toTurn, entryCount: span.length, coveredIds, summarizedAtMs: now }
        : { fromTurn, toTurn, entryCount: span.length, coveredIds, model, summarizedAtMs: now };
    const entry = {
      id,
      value: { role: 'system', content: header + text },
      metadata: { summarizes: coverage },
      version: 1,
      createdAt: anchor,
      updatedAt: anchor,
      lastAccessedAt: now,
      accessCount: 0,
    };
    if (ttlMs !== undefined) entry.ttl = anchor + ttlMs;
    entry.tier = tier;
    const firstSource = read.snapshot[span[0]].source;
    const identity = typeof firstSource === 'object' && firstSource !== null ? firstSource.identity : undefined;
    entry.source = identity ? { turn: toTurn, identity } : { turn: toTurn };
    return entry;
  } catch {
    return undefined;
  }
}

/** Assigns the settled recall to `scope.loaded`; a scope that refuses keeps its own. */
export function assignLoaded(scope, read, slots, newSummary) {
  try {
    scope.loaded = buildRecall(read, slots, newSummary);
  } catch {
    // Nothing else to do: recall stays what the scope holds.
  }
}

/** What `stage.fold` resolves to. */
export function foldResult(recall, type, payload) {
  return { recall, events: payload === undefined ? [] : [{ type, payload }] };
}

/** Recall from slots. */
export function buildRecall(read, slots, newSummary) {
  const snapshot = read.snapshot;
  const recall = new Array(slots.length);
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k];
    recall[k] = slot === NEW_SUMMARY_SLOT ? newSummary : snapshot[slot];
  }
  return recall;
}

// Evidence field kinds; must match src/bindings/evidence.rs.
const FIELD_BOOL = 0;
const FIELD_NUMBER = 1;
const FIELD_TEXT = 2;
const FIELD_OPEN = 3;
const FIELD_CLOSE = 4;

/**
 * One event, in one crossing: the payload in SPEC §2 key order with the
 * caller's own ids, sent to `scope.$emit` when a scope is given and to
 * `onEvent`, then returned. The core's strings come as one `text`: the
 * reason up to `reasonEnd`, then the evidence's text fields in order, then
 * the added summary's id, if any. `fields` (a view of Wasm memory, read
 * before any user code runs) holds the evidence as (key, kind, value)
 * triples, in key order.
 */
export function emitEvent(scope, onEvent, type, strategyId, strategyKind, text, reasonEnd, keys, fields, inputCount, outputCount, read, dropped) {
  const evidence = {};
  let target = evidence;
  let at = reasonEnd;
  for (let k = 0; k < fields.length; k += 3) {
    const key = keys[fields[k]];
    const value = fields[k + 2];
    switch (fields[k + 1]) {
      case FIELD_BOOL:
        target[key] = value !== 0;
        break;
      case FIELD_NUMBER:
        // As JSON would have it: a non-finite number is null.
        target[key] = value - value === 0 ? value : null;
        break;
      case FIELD_TEXT:
        target[key] = text.slice(at, at + value);
        at += value;
        break;
      case FIELD_OPEN:
        target = target[key] = {};
        break;
      case FIELD_CLOSE:
        target = evidence;
        break;
    }
  }
  const payload = {
    strategyId,
    strategyKind,
    reason: text.slice(0, reasonEnd),
    inputMemoryCount: inputCount,
    outputMemoryCount: outputCount,
    droppedIds: idsAt(read, dropped),
    addedIds: at < text.length ? [text.slice(at)] : [],
    scoreEvidence: evidence,
  };
  sendEvent(scope, onEvent, type, payload);
  return payload;
}

/** scope.$emit (this = scope), then onEvent. An observer that throws is ignored. */
function sendEvent(scope, onEvent, type, payload) {
  if (scope !== undefined) {
    try {
      const emit = scope.$emit;
      if (typeof emit === 'function') emit.call(scope, type, payload);
    } catch {
      // An observer's failure is the observer's; the turn goes on.
    }
  }
  if (onEvent !== undefined) {
    try {
      onEvent(type, payload);
    } catch {
      // Same.
    }
  }
}

/**
 * The stage function footprintjs calls, with `fold` attached. Recall is
 * read here first: a valid read that packed no facts (empty, or below the
 * core's `factsFrom` with no summary) changes nothing and explains nothing,
 * the same test `prepare` in stage.rs starts with, so such a visit settles
 * without entering Wasm. Otherwise a visit that needs no call settles inside
 * `inner.run`/`inner.fold`; one that must wait
 * (for the summarizer, the store, or another run's call) comes back as an
 * `Await`, and `inner.resume` takes it on with what the promise resolved to.
 * Every promise awaited here comes from this file and never rejects.
 */
export function makeStage(inner, factsFrom) {
  const stage = (scope) => {
    const read = readScope(scope, factsFrom);
    if (read.changesNothing) return Promise.resolve(undefined);
    return settle(inner, inner.run(scope, read, read.status, read.summaryCount, read.facts));
  };
  stage.fold = (loaded, identity) => {
    const read = readRecall(loaded, factsFrom);
    if (read.changesNothing) return Promise.resolve(foldResult(read.snapshot, undefined, undefined));
    return settle(inner, inner.fold(loaded, identity, read, read.status, read.summaryCount, read.facts));
  };
  return stage;
}

class Await {
  constructor(ticket, promise) {
    this.ticket = ticket;
    this.promise = promise;
  }
}

export function awaitStep(ticket, promise) {
  return new Await(ticket, promise);
}

function settle(inner, step) {
  return step instanceof Await ? resumeAfter(inner, step) : Promise.resolve(step);
}

async function resumeAfter(inner, step) {
  while (step instanceof Await) step = inner.resume(step.ticket, await step.promise);
  return step;
}

/** A flight's followers wait on `promise`; the leader calls `resolve`. */
export function newFlightSignal() {
  let resolve;
  const promise = new Promise((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** The single documented warning. */
export function warn(message) {
  try {
    console.warn(message);
  } catch {
    // A console that throws has nowhere else to say it.
  }
}
