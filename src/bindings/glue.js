// The JS half of the bindings. Rust runs the visit (src/bindings/visit.rs);
// what is here is what Rust cannot do, or what a measured crossing cost keeps
// in JS:
//
// - `readRecall` walks recall once and reads the few fields of every entry
//   the core needs. From Rust that is one crossing per field per entry
//   (about 8 per entry): 5 µs of a 20-entry recall and 0.5 ms of a
//   2,000-entry one, against 1 µs and 0.1 ms for a whole visit of the
//   original. Here it is a property load each.
// - ids stay JS strings: coverage is matched here, and the ids that go into
//   events and summaries are picked from the caller's own strings.
// - `awaitable` gives a value `await`'s semantics, which `JsFuture` (it calls
//   a promise's own `then`) does not have.
// - `makeStage` builds the plain function footprintjs calls.
//
// The shapes that cross are declared once, as `extern` types in
// src/bindings/glue.rs; this file builds objects with those property names.
// Every function Rust calls here is total: it returns, never throws, so no
// exception thrown by user data (a getter, a proxy) unwinds through Wasm.

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

/** `isSummaryClaim`: a fleet's claim on a span that is not a summary, as `readRecall` marks it. */
export function isClaimEntry(entry) {
  try {
    if (typeof entry !== 'object' || entry === null) return false;
    const metadata = entry.metadata;
    return coverageIn(metadata) === undefined && isClaim(metadata);
  } catch {
    return false;
  }
}

/** Whether an entry's `metadata` marks a fleet's claim on a span. May throw (getters). */
function isClaim(metadata) {
  if (typeof metadata !== 'object' || metadata === null) return false;
  const claim = metadata.summaryClaim;
  return typeof claim === 'object' && claim !== null;
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

/**
 * What a failure says, as the original writes it: an Error's message, and
 * `String(value)` for anything else (`Promise.reject(404)` → `404`).
 */
export function causeOf(error) {
  try {
    if (error instanceof Error) return error.message || error.name;
    return String(error);
  } catch {
    return describe(error);
  }
}

const RECALL_EXPECTED = 'an array of memory entries, or undefined';

// One facts buffer for every recall (typed arrays are costly to allocate:
// five per recall were a third of a 20-entry visit). A read made while
// another is being filled (a getter that re-enters the stage) gets its own.
// Rust copies the facts out before any user code can run again.
let scratch = new Float64Array(0);
let filling = false;

/**
 * Where each fact column starts in `RecallRead.facts`, in entries: entry i's
 * turn is `facts[FACT_COLUMNS.turns * n + i]` for a recall of n entries. The
 * facts cross as one array (one copy into Wasm, not one per column); Rust
 * reads these offsets by the names `FactColumns` declares in glue.rs.
 */
export const FACT_COLUMNS = Object.freeze({
  turns: 0,
  updatedAts: 1,
  units: 2,
  toTurns: 3,
  fromTurns: 4,
  covered: 5,
  claims: 6,
});
const FACTS_PER_ENTRY = Object.keys(FACT_COLUMNS).length;

/** One recall as read: see `RecallRead` in src/bindings/glue.rs. */
function recallRead(snapshot) {
  const size = FACTS_PER_ENTRY * snapshot.length;
  let facts = scratch;
  if (filling) facts = new Float64Array(size);
  else if (scratch.length < size) facts = scratch = new Float64Array(Math.max(size, 2 * scratch.length));
  return {
    snapshot,
    identity: undefined,
    ids: new Array(snapshot.length),
    facts: facts.subarray(0, size),
    summariesAndClaims: 0,
    invalid: undefined,
  };
}

/** A recall that could not be read at all (`loaded` itself): empty, with the spot. */
function rejected(index, field, found, expected) {
  const read = recallRead([]);
  invalidAt(read, index, field, found, expected);
  return read;
}

/** `scope.identity` and `scope.loaded`, each read once, then `readRecall`. */
export function readScope(scope) {
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
    return rejected(-1, 'loaded', `unreadable (reading it threw: ${causeOf(error)})`, RECALL_EXPECTED);
  }
  const read = readRecall(loaded);
  read.identity = identity;
  return read;
}

/**
 * SPEC §4 step 1: snapshot recall ONCE by iteration (footprintjs hands out
 * live element proxies on index reads), check every entry's shape (SPEC §8)
 * and read its facts. NaN marks an absent turn or clock, and a raw entry's
 * `toTurns` slot. On bad input `invalid` names the first offending spot.
 */
export function readRecall(loaded) {
  if (loaded === undefined || loaded === null) return recallRead([]);
  let snapshot;
  try {
    // Array.isArray throws for a revoked Proxy.
    if (!Array.isArray(loaded)) return rejected(-1, 'loaded', describe(loaded), RECALL_EXPECTED);
    snapshot = Array.from(loaded);
  } catch (error) {
    return rejected(-1, 'loaded', `unreadable (iterating it threw: ${causeOf(error)})`, RECALL_EXPECTED);
  }
  const read = recallRead(snapshot);
  const outermost = !filling;
  filling = true;
  try {
    fillFacts(read);
  } finally {
    if (outermost) filling = false;
  }
  return read;
}

function invalidAt(read, index, field, found, expected) {
  read.invalid = { index, field, found, expected };
}

/**
 * Checks every entry of `read.snapshot` and writes its facts (SPEC §8
 * shapes). This loop is most of a visit's cost, so the checks are inline
 * and `x - x === 0` stands for `Number.isFinite(x)` on a number.
 */
function fillFacts(read) {
  const { snapshot, ids, facts } = read;
  const n = snapshot.length;
  // Where each column starts (FACT_COLUMNS).
  const turns = FACT_COLUMNS.turns * n;
  const updatedAts = FACT_COLUMNS.updatedAts * n;
  const units = FACT_COLUMNS.units * n;
  const toTurns = FACT_COLUMNS.toTurns * n;
  const fromTurns = FACT_COLUMNS.fromTurns * n;
  const covered = FACT_COLUMNS.covered * n;
  const claims = FACT_COLUMNS.claims * n;
  // Each summary's index and its list of covered ids, in load order.
  let coveredIdLists;
  let i = 0;
  try {
    for (; i < n; i++) {
      const entry = snapshot[i];
      if (typeof entry !== 'object' || entry === null) {
        return invalidAt(read, i, 'entry', describe(entry), 'a memory entry object');
      }
      const id = entry.id;
      if (typeof id !== 'string') return invalidAt(read, i, 'id', describe(id), 'a string');
      ids[i] = id;
      const value = entry.value;
      if (typeof value !== 'object' || value === null) {
        return invalidAt(read, i, 'value', describe(value), 'an object with a `content`');
      }
      const content = value.content;
      if (typeof content === 'string') facts[units + i] = content.length;
      else if (content === undefined || content === null) facts[units + i] = 0;
      else return invalidAt(read, i, 'value.content', describe(content), 'a string, null or absent');
      facts[turns + i] = NaN;
      const source = entry.source;
      if (typeof source === 'object' && source !== null) {
        const turn = source.turn;
        if (typeof turn === 'number' && turn - turn === 0) facts[turns + i] = turn;
        else if (turn !== undefined && turn !== null) {
          return invalidAt(read, i, 'source.turn', describe(turn), 'a finite number or absent');
        }
      }
      const updatedAt = entry.updatedAt;
      if (typeof updatedAt === 'number' && updatedAt - updatedAt === 0) facts[updatedAts + i] = updatedAt;
      else if (updatedAt === undefined || updatedAt === null) facts[updatedAts + i] = NaN;
      else return invalidAt(read, i, 'updatedAt', describe(updatedAt), 'a finite number or absent');
      const metadata = entry.metadata;
      const coverage = coverageIn(metadata);
      facts[claims + i] = 0;
      if (coverage === undefined) {
        facts[toTurns + i] = NaN;
        if (isClaim(metadata)) {
          facts[claims + i] = 1;
          read.summariesAndClaims++;
        }
      } else {
        const toTurn = coverage.toTurn;
        facts[toTurns + i] = typeof toTurn === 'number' && toTurn - toTurn === 0 ? toTurn : 0;
        const fromTurn = coverage.fromTurn;
        facts[fromTurns + i] = typeof fromTurn === 'number' && fromTurn - fromTurn === 0 ? fromTurn : facts[toTurns + i];
        read.summariesAndClaims++;
        // A plain copy: an exotic array (a Proxy) runs its traps here, where
        // a throw is this entry's.
        (coveredIdLists ??= []).push(i, Array.prototype.slice.call(coverage.coveredIds));
      }
    }
  } catch (error) {
    return invalidAt(read, i, 'entry', `unreadable (reading it threw: ${causeOf(error)})`, 'a plain memory entry');
  }
  facts.fill(0, covered, covered + n);
  if (coveredIdLists === undefined) return;
  // An entry is covered when a summary with another id names it: a raw entry
  // a summary stands for, or a summary a rolling fold took in. `namedBy`
  // holds, for each named id, a summary naming it: one with another id
  // whenever there is one, since a summary naming its own id only fills a
  // gap. So each id costs one write, and no read.
  const namedBy = new Map();
  for (let k = 0; k < coveredIdLists.length; k += 2) {
    const owner = ids[coveredIdLists[k]];
    const list = coveredIdLists[k + 1];
    for (let m = 0; m < list.length; m++) {
      const id = list[m];
      if (id !== owner || !namedBy.has(id)) namedBy.set(id, owner);
    }
  }
  for (let j = 0; j < ids.length; j++) {
    const by = namedBy.get(ids[j]);
    if (by !== undefined && by !== ids[j]) facts[covered + j] = 1;
  }
}

/** The caller's own entries at `slots`, with `added` (the new summary) where a slot is `addedSlot`. */
export function pick(snapshot, slots, added, addedSlot) {
  const out = new Array(slots.length);
  for (let k = 0; k < slots.length; k++) out[k] = slots[k] === addedSlot ? added : snapshot[slots[k]];
  return out;
}

/** The ids (as read) at `indices`: the caller's own strings. */
export function pickIds(ids, indices) {
  const out = new Array(indices.length);
  for (let k = 0; k < indices.length; k++) out[k] = ids[indices[k]];
  return out;
}

/**
 * The span's roles and contents for the transcript (SPEC §5): `texts` holds
 * role, content, role, … (a role is undefined when absent; content is empty
 * when absent), `absentRoles[k]` is 1 where entry k has no role, and the
 * texts that hold `markerLead` (the core's `MARKER_LEAD`: only those can
 * hold a marker the core defangs) are
 * sent whole: `marked` joined, at `markedAt`, each `markedLengths` long.
 * Every other text stays here and is spliced in by `assembleTranscript`:
 * copying a span's text into Wasm and back cost more than the rest of a
 * provider fold. Undefined when an entry can no longer be read.
 */
export function spanTexts(snapshot, span, markerLead) {
  try {
    const texts = new Array(2 * span.length);
    const absentRoles = new Uint8Array(span.length);
    const markedAt = [];
    const markedLengths = [];
    let marked = '';
    for (let k = 0; k < span.length; k++) {
      const value = snapshot[span[k]].value;
      const role = value.role === undefined || value.role === null ? undefined : String(value.role);
      if (role === undefined) absentRoles[k] = 1;
      texts[2 * k] = role;
      texts[2 * k + 1] = typeof value.content === 'string' ? value.content : '';
      for (const at of [2 * k, 2 * k + 1]) {
        const text = texts[at];
        if (text !== undefined && text.includes(markerLead)) {
          markedAt.push(at);
          markedLengths.push(text.length);
          marked += text;
        }
      }
    }
    return {
      texts,
      absentRoles,
      marked,
      markedAt: Uint32Array.from(markedAt),
      markedLengths: Uint32Array.from(markedLengths),
    };
  } catch {
    return undefined;
  }
}

/** The transcript: the core's text with `texts[piece]` inserted at each UTF-16 `offset` (pairs in `splices`). */
export function assembleTranscript(texts, text, splices) {
  let transcript = '';
  let at = 0;
  for (let k = 0; k < splices.length; k += 2) {
    const offset = splices[k];
    transcript += text.slice(at, offset) + texts[splices[k + 1]];
    at = offset;
  }
  return transcript + text.slice(at);
}

/** The span's own value objects, oldest first; undefined when one can no longer be read. */
export function spanValues(snapshot, span) {
  try {
    const values = new Array(span.length);
    for (let k = 0; k < span.length; k++) values[k] = snapshot[span[k]].value;
    return values;
  } catch {
    return undefined;
  }
}

/** The first span entry's `source.identity` when truthy (SPEC §2); undefined when unreadable. */
export function sourceIdentity(entry) {
  try {
    const source = entry.source;
    const identity = typeof source === 'object' && source !== null ? source.identity : undefined;
    return identity || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The full key of a span: its identity's text and its ids, written so that
 * two different keys are two different strings (JSON quotes each part, and
 * escapes lone surrogates).
 */
export function spanKey(identityText, ids, span) {
  const parts = new Array(span.length + 1);
  parts[0] = identityText;
  for (let k = 0; k < span.length; k++) parts[k + 1] = ids[span[k]];
  return JSON.stringify(parts);
}

/**
 * A stable text for the identity: same conversation, same text. Each form
 * starts differently (`#` or a type name), so two forms never share one.
 * Undefined for an identity that cannot be told apart by its text (a
 * symbol, a part that throws): its visit joins no call and latches nothing.
 * Read when a visit considers a fold, so changing the identity object later
 * changes nothing for that visit.
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
 * absent. Throws for a part with no text of its own. (`JSON.stringify` of
 * the three parts would not do: it writes a function or symbol part as
 * `null`, the same as an absent one, and throws for a bigint.)
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
 * A native promise of what `await value` gives. `JsFuture` follows a promise
 * through its `then` method, which user code may own (and throw from, or
 * lie through `constructor`), and a Proxy of a promise has no `then` of its
 * own to call; `await` handles all of them, and an async function never
 * throws at its caller.
 */
export async function awaitable(value) {
  return await value;
}

/** scope.$emit (this = scope), then onEvent. An observer that throws is ignored. */
export function sendEvent(scope, onEvent, type, payload) {
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

/** Assigns `scope.loaded`; a scope that refuses keeps its own. */
export function assignLoaded(scope, recall) {
  try {
    scope.loaded = recall;
  } catch {
    // Nothing else to do: recall stays what the scope holds.
  }
}

/** The single documented warning. */
export function warn(message) {
  try {
    console.warn(message);
  } catch {
    // A console that throws has nowhere else to say it.
  }
}

/** A deadline: resolves to `marker` after `ms` unless cleared. */
export function deadline(ms, marker) {
  let timer;
  const promise = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, marker);
  });
  return { promise, clear: () => clearTimeout(timer) };
}

/**
 * A stage's handle (src/bindings/handle.rs): a copy of its config, which
 * known keys it has (`known` maps each name to its bit), its id, its
 * warn-once flag, and the first key of the config that `known` lacks.
 */
export function newHandle(config, id, known) {
  const copy = { ...config };
  const handle = {
    config: copy,
    present: 0,
    id,
    warned: false,
    claimsNoted: false,
    unknownKey: undefined,
    unknownValue: undefined,
  };
  // Every key is seen, even after an unknown one: the checks that run before
  // the unknown key is refused must not take a key after it for absent.
  for (const key in copy) {
    const bit = known.get(key);
    if (bit !== undefined) {
      handle.present |= bit;
    } else if (handle.unknownKey === undefined) {
      handle.unknownKey = key;
      handle.unknownValue = copy[key];
    }
  }
  return handle;
}

// Stages that hold Wasm state (a latch) tell Rust to free it when they are
// collected. Most stages never refuse a span and are never registered.
let latches;

export function freeWhenCollected(handle, stageId, free) {
  latches ??= new FinalizationRegistry(free);
  latches.register(handle, stageId);
}

/**
 * The stage function footprintjs calls, with `fold` attached, over a
 * handle (src/bindings/handle.rs). It always returns a real Promise.
 *
 * Every function Rust calls here returns instead of throwing, so an
 * exception out of `run` or `fold` has unwound through Rust frames: a trap
 * (running out of memory, say) or a JS stack overflow inside Wasm. The
 * instance's state can no longer be trusted, and visits waiting inside it
 * would wait forever. So that visit rejects with the failure named, every
 * visit still in flight rejects with it too, and every later visit rejects
 * at once. (A trap in the async part of a visit, after an await, happens in
 * a wasm-bindgen-futures task this guard does not see: that visit stays
 * pending, and the failure reaches the runtime as an uncaught error.)
 */
export function makeStage(handle, run, fold) {
  const stage = (scope) => guarded(() => run(handle, scope));
  stage.fold = (loaded, identity) => guarded(() => fold(handle, loaded, identity));
  return stage;
}

/** The reject functions of visits still in flight, and the failure that ended the instance. */
const inFlight = new Set();
let instanceFailure;

function guarded(visit) {
  if (instanceFailure !== undefined) return Promise.reject(instanceFailure);
  let settled;
  try {
    settled = visit();
  } catch (error) {
    instanceFailure ??= new Error(
      `footprint-summarize: the stage's WebAssembly instance failed (${causeOf(error)}); this visit and every ` +
        'later one are rejected, and recall was not changed. Reload the module (restart the process) to summarize again',
      { cause: error },
    );
    for (const reject of inFlight) reject(instanceFailure);
    inFlight.clear();
    return Promise.reject(instanceFailure);
  }
  // A visit started from user code inside this one may have failed the
  // instance before this one was listed.
  if (instanceFailure !== undefined) return Promise.reject(instanceFailure);
  // A visit that settled without waiting hands back its result (never a
  // Promise: undefined, or `stage.fold`'s plain object); one that waits on
  // the summarizer or the store hands back a Promise, and is listed until it
  // settles (`run` in src/bindings/visit.rs).
  if (!(settled instanceof Promise)) return Promise.resolve(settled);
  return new Promise((resolve, reject) => {
    inFlight.add(reject);
    settled.then(
      (value) => {
        inFlight.delete(reject);
        resolve(value);
      },
      (error) => {
        inFlight.delete(reject);
        reject(error);
      },
    );
  });
}
