// What the bindings cannot do in Rust (src/bindings/js.rs declares these
// functions): describe any value and name any failure without a throw
// escaping, give a value `await`'s semantics, set timers, and make the
// function footprintjs calls. Every function here is total: it returns, never
// throws, so nothing thrown by a caller's getter or Proxy unwinds through Wasm.

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
 * `{ ...value }`: a plain copy of an object's own enumerable properties, each
 * read once. Unlike `Object.assign`, it defines every property, so an own
 * `__proto__` key stays a key instead of setting the copy's prototype. May
 * throw (a getter): declared with `catch`.
 */
export function plainCopy(value) {
  return { ...value };
}

/**
 * What a failure says, as the original writes it: an Error's message, and
 * `String(value)` for anything else (`Promise.reject(404)` → `404`). Always
 * a string, which Rust receives as one: an SDK's error may carry a number
 * or an object as its `message` (`error.message = 429`).
 */
export function causeOf(error) {
  try {
    return String(error instanceof Error ? error.message || error.name : error);
  } catch {
    return describe(error);
  }
}

/**
 * `Array.from(value)`, except that it stops once the copy holds more than
 * `max` entries: an array's own iterator may never end, and copying it
 * would take all the memory the process has. May throw (an iterator):
 * declared with `catch`.
 */
export function copyUpTo(value, max) {
  const copy = [];
  for (const entry of value) {
    copy.push(entry);
    if (copy.length > max) break;
  }
  return copy;
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

/**
 * A deadline: resolves to `marker` after `ms`. Clearing it stops the timer
 * and resolves the promise at once (to undefined): a Rust future awaiting a
 * promise that never settles is never freed, so every deadline settles.
 */
export function deadline(ms, marker) {
  let clear;
  const promise = new Promise((resolve) => {
    const timer = setTimeout(resolve, ms, marker);
    clear = () => {
      clearTimeout(timer);
      resolve(undefined);
    };
  });
  return { promise, clear };
}

// Each instance registers its entry points as it starts (src/bindings/mod.rs),
// so a stage always runs on the current instance: after a failed instance is
// replaced, stages built before it work on its successor.
let entryPoints;
/** How many instances have failed; a visit that outlives its instance is rejected. */
let failures = 0;
let lastFailure;
/**
 * A failure noted but not handled yet: handling takes stack (making a fresh
 * instance most of all), which a caller deep in its own recursion may not
 * have left. A microtask handles it, or else the next visit, task or export.
 */
let unhandled;
/** What rejects every visit while no sound instance serves them. */
let instanceFailure;
/** Makes a fresh instance (the package entry's); none where there is no entry (the Wasm test suites). */
let replaceInstance;
let nextId = 0;

export function useEntryPoints(run, fold) {
  entryPoints = { run, fold };
  instanceFailure = undefined;
}

/** Ids that tell stages apart across instances: a successor never reuses one. */
export function nextStageId() {
  return nextId++;
}

/** Registers what makes a fresh instance after one fails. */
export function onInstanceFailure(replace) {
  replaceInstance = replace;
}

/**
 * The stage function footprintjs calls, with `fold` attached, over a
 * handle (src/bindings/stage.rs). It always returns a real Promise.
 *
 * Every function Rust calls here returns instead of throwing, and a visit
 * settles every outcome as a value, so an exception out of a visit, or a
 * rejection of its promise, has unwound through Rust frames: a trap (running
 * out of memory, say) or a JS exception inside Wasm. The instance's state can
 * no longer be trusted, and visits waiting inside it would wait forever. So
 * that visit and every visit still in flight reject with the failure named,
 * and a fresh instance serves later visits, without the failed one's latches
 * and single flights (at most a repeated summarizer call); where nothing can
 * make one, every later visit rejects. (`guardTask` does the same for the
 * part of a visit after an await.)
 */
export function makeStage(handle) {
  const stage = (scope) => guarded(() => entryPoints.run(handle, scope));
  stage.fold = (loaded, identity) => guarded(() => entryPoints.fold(handle, loaded, identity));
  return stage;
}

const inFlight = new Set(); // the reject functions of visits still in flight
const settledPromise = Promise.resolve();

/**
 * How many visits may run inside one another. A hook (a getter, `now`,
 * `countTokens`, the summarizer, `$emit`, `onEvent`) may call the stage
 * while its own visit runs, and every visit on the stack holds part of the
 * instance's stack. Far deeper than any pipeline nests, and far short of the
 * depth that overflows that stack (a few hundred visits), which would fail
 * the instance and every other conversation's visit in flight with it.
 */
const MAX_NESTED_VISITS = 32;
let nestedVisits = 0;

function guarded(visit) {
  const failure = currentFailure();
  if (failure !== undefined) return Promise.reject(failure);
  if (nestedVisits >= MAX_NESTED_VISITS) {
    return Promise.reject(
      new RangeError(
        `footprint-summarize: a visit started inside ${MAX_NESTED_VISITS} visits still running is refused before it reads anything (recall and the store are untouched): a hook (a getter, now, countTokens, the summarizer, $emit or onEvent) calls the stage again from inside each visit. Fix: do not call the stage from its own hooks, or let the call wait for the visit (queueMicrotask)`,
      ),
    );
  }
  const born = failures;
  let visiting;
  nestedVisits += 1;
  try {
    visiting = visit();
  } catch (error) {
    // Noted first, with no call, so that no lack of stack can lose it. A
    // visit whose instance already failed (user code inside it started a
    // visit that failed it) unwinds here too: that failure is counted once.
    if (failures === born) {
      failures += 1;
      unhandled = error;
    }
    // Handled at once when the stack allows, and in any case by a microtask
    // once it has unwound: a caller deep in its own recursion may leave none.
    // (A promise's `then` is V8's own; Node's `queueMicrotask` needs more stack.)
    try {
      settledPromise.then(handleFailure);
      handleFailure();
    } catch {
      // Left to the microtask, or to the next visit, task or export call.
    }
    return Promise.reject(unhandled ?? lastFailure);
  } finally {
    nestedVisits -= 1;
  }
  // A visit started from user code inside this one may have failed the
  // instance before this one was listed.
  if (failures !== born) return Promise.reject(lastFailure);
  return new Promise((resolve, reject) => {
    inFlight.add(reject);
    visiting
      .then(resolve, (error) => {
        // The promise's executor caught it, before the catch above could.
        noteFailure(error, born);
        handleFailure();
        reject(lastFailure);
      })
      .finally(() => inFlight.delete(reject));
  });
}

/** Notes a failure of the instance `born` counted, once per instance. */
function noteFailure(error, born) {
  if (failures === born) {
    failures += 1;
    unhandled = error;
  }
}

/**
 * A task of the instance's async visits (wasm-bindgen-futures' queue, which
 * polls a visit after an await), run so that a failure inside it ends the
 * instance as one in a visit's first part does: the package entry's build
 * wraps every task in it (instanceFactory in scripts/assemble-package.mjs).
 */
export function guardTask(task) {
  const born = failures;
  return () => {
    // A task of an instance that has failed polls only visits rejected already.
    if (currentFailure() !== undefined || failures !== born) return;
    try {
      task();
    } catch (error) {
      // A task runs on a stack of its own: there is room to handle it now.
      noteFailure(error, born);
      handleFailure();
    }
  };
}

/**
 * What keeps every visit out (undefined while a sound instance serves
 * them), once a failure noted earlier is handled and an owed replacement
 * tried again.
 */
export function currentFailure() {
  handleFailure();
  return instanceFailure;
}

/**
 * Ends a failed instance: rejects every visit in flight in it, and replaces
 * it when it can; one that cannot be made yet is tried again by every
 * visit, task and export call.
 */
function handleFailure() {
  if (unhandled !== undefined) {
    const error = unhandled;
    const what = `footprint-summarize: the stage's WebAssembly instance failed (${causeOf(error)}); this visit and every visit in flight are rejected`;
    lastFailure = new Error(
      replaceInstance !== undefined
        ? `${what}. A fresh instance serves later visits; the failed one's latches and single flights are gone, which costs at most a repeated summarizer call`
        : `${what}, as is every later visit. Reload the module (restart the process) to summarize again`,
      { cause: error },
    );
    instanceFailure = lastFailure;
    for (const reject of inFlight) reject(lastFailure);
    inFlight.clear();
    unhandled = undefined;
  }
  if (instanceFailure === undefined || replaceInstance === undefined) return;
  try {
    // Retires the failed instance and starts one (useEntryPoints clears instanceFailure).
    replaceInstance();
  } catch (error) {
    instanceFailure = new Error(
      `footprint-summarize: the stage's WebAssembly instance failed and a fresh one cannot be made yet (${causeOf(error)}); every visit is rejected until one can, and each tries again`,
      { cause: error },
    );
    return;
  }
  try {
    console.warn(`[footprint-summarize] ${lastFailure.message}.`);
  } catch {
    // A console that throws has nowhere else to say it.
  }
}
