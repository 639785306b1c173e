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

/** One recall as read: see `RecallRead` in src/bindings/glue.rs. */
function recallRead(snapshot) {
  const n = snapshot.length;
  return {
    snapshot,
    identity: undefined,
    ids: new Array(n),
    turns: new Float64Array(n),
    updatedAts: new Float64Array(n),
    units: new Float64Array(n),
    toTurns: new Float64Array(n),
    covered: new Uint8Array(n),
    invalid: undefined,
  };
}

function rejected(index, field, found, expected, snapshot = []) {
  const read = recallRead(snapshot);
  read.invalid = { index, field, found, expected };
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
  if (!Array.isArray(loaded)) return rejected(-1, 'loaded', describe(loaded), RECALL_EXPECTED);
  let snapshot;
  try {
    snapshot = Array.from(loaded);
  } catch (error) {
    return rejected(-1, 'loaded', `unreadable (iterating it threw: ${causeOf(error)})`, RECALL_EXPECTED);
  }
  const read = recallRead(snapshot);
  const { ids, turns, updatedAts, units, toTurns } = read;
  let coveredIdLists;
  let i = 0;
  const reject = (field, found, expected) => {
    read.invalid = { index: i, field, found, expected };
    return read;
  };
  try {
    for (; i < snapshot.length; i++) {
      const entry = snapshot[i];
      if (typeof entry !== 'object' || entry === null) return reject('entry', describe(entry), 'a memory entry object');
      const id = entry.id;
      if (typeof id !== 'string') return reject('id', describe(id), 'a string');
      ids[i] = id;
      const value = entry.value;
      if (typeof value !== 'object' || value === null) {
        return reject('value', describe(value), 'an object with a `content`');
      }
      const content = value.content;
      if (typeof content === 'string') units[i] = content.length;
      else if (content !== undefined && content !== null) {
        return reject('value.content', describe(content), 'a string, null or absent');
      }
      turns[i] = NaN;
      const source = entry.source;
      if (typeof source === 'object' && source !== null) {
        const turn = source.turn;
        if (Number.isFinite(turn)) turns[i] = turn;
        else if (turn !== undefined && turn !== null) {
          return reject('source.turn', describe(turn), 'a finite number or absent');
        }
      }
      const updatedAt = entry.updatedAt;
      if (Number.isFinite(updatedAt)) updatedAts[i] = updatedAt;
      else if (updatedAt === undefined || updatedAt === null) updatedAts[i] = NaN;
      else return reject('updatedAt', describe(updatedAt), 'a finite number or absent');
      const coverage = coverageIn(entry.metadata);
      if (coverage === undefined) {
        toTurns[i] = NaN;
      } else {
        toTurns[i] = Number.isFinite(coverage.toTurn) ? coverage.toTurn : 0;
        // A plain copy: an exotic array (a Proxy) runs its traps here, where
        // a throw is this entry's.
        (coveredIdLists ??= []).push(Array.prototype.slice.call(coverage.coveredIds));
      }
    }
  } catch (error) {
    return reject('entry', `unreadable (reading it threw: ${causeOf(error)})`, 'a plain memory entry');
  }
  if (coveredIdLists !== undefined) {
    const named = new Set(coveredIdLists.flat());
    for (let j = 0; j < ids.length; j++) {
      if (toTurns[j] !== toTurns[j] && named.has(ids[j])) read.covered[j] = 1;
    }
  }
  return read;
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
 * The span's roles and contents, as the transcript writes them: role (or
 * undefined when absent), content (empty when absent), and so on. Undefined
 * when an entry can no longer be read (a role with no string form).
 */
export function spanTexts(snapshot, span) {
  try {
    const texts = new Array(2 * span.length);
    for (let k = 0; k < span.length; k++) {
      const value = snapshot[span[k]].value;
      texts[2 * k] = value.role === undefined || value.role === null ? undefined : String(value.role);
      texts[2 * k + 1] = typeof value.content === 'string' ? value.content : '';
    }
    return texts;
  } catch {
    return undefined;
  }
}

/** The span's own value objects, oldest first; undefined when one can no longer be read. */
export function spanValues(snapshot, span) {
  try {
    return Array.from(span, (index) => snapshot[index].value);
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
 * absent. Throws for a part with no text of its own.
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
 * lie through `constructor`); `await` ignores both.
 */
export async function awaitable(value) {
  return await value;
}

/** `self[method](...args)`'s result, or `{ threw }` when it throws (so no exception unwinds through Wasm). */
export function attempt(self, method, args) {
  try {
    const fn = method === undefined ? self : self[method];
    return { value: fn.apply(method === undefined ? undefined : self, args) };
  } catch (error) {
    return { threw: causeOf(error) };
  }
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

// Stages that hold Wasm state (a latch) tell Rust to free it when they are
// collected. Most stages never refuse a span and are never registered.
let latches;

export function freeWhenCollected(handle, stageId, free) {
  latches ??= new FinalizationRegistry(free);
  latches.register(handle, stageId);
}

/**
 * The stage function footprintjs calls, with `fold` attached, over a
 * handle (src/bindings/handle.rs). It always returns a real Promise: if the
 * Wasm instance itself fails (a trap, such as running out of memory), the
 * visit rejects with that error named, instead of throwing at the caller.
 */
export function makeStage(handle, run, fold) {
  const stage = (scope) => guarded(() => run(handle, scope));
  stage.fold = (loaded, identity) => guarded(() => fold(handle, loaded, identity));
  return stage;
}

function guarded(visit) {
  try {
    return visit();
  } catch (error) {
    return Promise.reject(
      new Error(`footprint-summarize: the stage's WebAssembly instance failed (${causeOf(error)}); recall was not changed`),
    );
  }
}
