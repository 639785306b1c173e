// What the bindings cannot do in Rust (src/bindings/js.rs declares these functions): describe any value and
// name any failure without a throw escaping, give a value `await`'s semantics, set timers, make the function
// footprintjs calls, and end an instance that fails. Only what is declared with `catch` throws, so nothing a
// caller's getter or Proxy throws unwinds through Wasm.

/** A short, safe description of any value: `a number (42)`, its text cut at 40 characters (a symbol's too). */
export function describe(value) {
  const clip = (text) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
  try {
    const type = typeof value;
    if (type === 'undefined') return 'undefined';
    if (value === null) return 'null';
    if (type === 'string') return `a string (${JSON.stringify(clip(value))})`;
    if (type === 'symbol') return `a symbol (${clip(value.description ?? '')})`;
    if (type === 'function') return 'a function';
    if (Array.isArray(value)) return `an array (length ${value.length})`;
    if (type === 'object') return value instanceof Map ? 'a Map' : 'an object';
    return `a ${type} (${clip(String(value))})`; // a number, a bigint or a boolean
  } catch {
    return 'an unreadable value';
  }
}

/**
 * `{ ...value }`: its own enumerable properties, each read once. Unlike `Object.assign`, it defines every
 * property, so an own `__proto__` key stays a key instead of setting the copy's prototype. May throw.
 */
export function plainCopy(value) {
  return { ...value };
}

/**
 * What a failure says, as the original writes it: an Error's message, and `String(value)` for anything else
 * (`Promise.reject(404)` → `404`). Always a string, which Rust receives as one: an SDK's error may carry a
 * number or an object as its `message`.
 */
export function causeOf(error) {
  try {
    return String(error instanceof Error ? error.message || error.name : error);
  } catch {
    return describe(error);
  }
}

/**
 * `Array.from(value)`, except that it stops once the copy holds more than `max` entries: an array's own
 * iterator may never end, and copying it would take all the memory the process has. May throw.
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
 * A native promise of what `await value` gives: `JsFuture` follows a promise through its `then`, which user
 * code may own (and throw from, or lie through `constructor`), and a Proxy of a promise has none of its own.
 * Marked handled: a visit rejected with a failed instance is never polled again, and a summarizer's late
 * rejection would otherwise end a Node process.
 */
export function awaitable(value) {
  const settled = (async () => await value)();
  settled.catch(() => {});
  return settled;
}

/**
 * Reports the waits whose promise became garbage unsettled (src/bindings/promise_wait.rs). Where the platform
 * has no FinalizationRegistry, such a wait holds its visit until its deadline (for good without one), and its
 * slot, a few bytes, after that.
 */
const unsettled =
  typeof FinalizationRegistry === 'undefined'
    ? { register() {}, unregister() {} }
    : new FinalizationRegistry((report) => report());

/**
 * `settle(id, true, value)` or `settle(id, false, error)` once `promise` settles, or `settle(id)` once it is
 * garbage: only the promise's reactions hold the wait (its token), and they hold no Rust memory. Each report runs
 * as a task of the instance that made the wait (`guardTask`): a failure in it ends that instance, as one in a
 * visit does, and a failed instance's waits are never reported.
 */
export function onSettled(promise, id, settle) {
  const report = reporter(settle, id);
  const token = {};
  unsettled.register(token, report, token);
  const settled = (fulfilled, value) => {
    unsettled.unregister(token);
    report(fulfilled, value);
  };
  promise.then(
    (value) => settled(true, value),
    (error) => settled(false, error),
  );
}

/**
 * `settle(id, ...outcome)`, guarded. Made in a scope of its own: a closure made inside `onSettled` would share
 * its context, token included, and the registry's holdings must not reach the token they report on.
 */
function reporter(settle, id) {
  return guardTask((...outcome) => settle(id, ...outcome));
}

/**
 * Resolves after `ms`. Clearing it stops the timer and resolves at once, so its wait in Rust ends then, not when
 * the collector finds the promise (src/bindings/promise_wait.rs).
 */
export function deadline(ms) {
  let clear;
  const promise = new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    clear = () => {
      clearTimeout(timer);
      resolve(undefined);
    };
  });
  return { promise, clear };
}

/**
 * The instance stages run on, as one record. `state` is where it stands:
 *   - 'serving': visits run on `entryPoints`;
 *   - 'failing': a failure is noted (`noted`), not yet handled, which takes stack a deep caller may lack
 *     (`handleSoon`);
 *   - 'down': handled; every visit is rejected with `failure` until a fresh instance registers its entry points.
 * Each instance registers its entry points as it starts (src/bindings/mod.rs), so a stage always runs on the
 * current instance: after a failed instance is replaced, stages built before it work on its successor.
 */
const instance = {
  state: 'serving',
  entryPoints: undefined,
  noted: undefined,
  failure: undefined,
  /** How many instances have failed: a visit born in one that has failed since is rejected. */
  failures: 0,
  /** The newest failure, named: what the failed instance's visits are rejected with. */
  lastFailure: undefined,
  /** Makes a fresh instance (the package entry's); none where there is no entry (the Wasm test suites). */
  replace: undefined,
  /** The reject functions of the visits in flight: a failure rejects them all. */
  visits: new Set(),
  /** The ends of the background folds in flight: a failure resolves them, as the failed instance polls them no more. */
  foldEnds: new Set(),
};
let nextId = 0;

export function useEntryPoints(run, fold) {
  instance.entryPoints = { run, fold };
  if (instance.state === 'down') {
    instance.state = 'serving';
    instance.failure = undefined;
  }
}

/** Ids that tell stages apart across instances: a successor never reuses one. */
export function nextStageId() {
  return nextId++;
}

/** Registers what makes a fresh instance after one fails. */
export function onInstanceFailure(replace) {
  instance.replace = replace;
}

/**
 * The stage function footprintjs calls, with `fold` attached, over a handle (src/bindings/stage.rs); it always
 * returns a real Promise. A visit settles every outcome as a value, so a throw or a rejection out of it has
 * unwound through Rust (a trap, or a JS exception inside Wasm): the instance can no longer be trusted, and
 * visits waiting in it would wait forever. They all reject, the failure named, and a fresh instance serves
 * later visits without the failed one's latches and single flights (at most a repeated summarizer call); where
 * none can be made, every later visit rejects. So do `guardTask` after an await and `guardedExport` outside visits.
 */
export function makeStage(handle) {
  const stage = (scope) => guarded(() => instance.entryPoints.run(handle, scope));
  stage.fold = (loaded, identity) => guarded(() => instance.entryPoints.fold(handle, loaded, identity));
  stage.settled = () => Promise.all(backgroundFolds.get(handle) ?? []).then(() => undefined);
  return stage;
}

/** Each stage's background folds in flight (the ends `trackBackgroundFold` returns), by the stage's handle. */
const backgroundFolds = new WeakMap();

/**
 * A background fold (`background: true`): counted by the stage's `settled()` until it ends, and returned as a
 * promise that settles, never rejecting, when it ends (what `waitUntil` is given). A failed instance polls its
 * folds no more, so its failure ends them.
 */
export function trackBackgroundFold(handle, fold) {
  let folds = backgroundFolds.get(handle);
  if (folds === undefined) backgroundFolds.set(handle, (folds = new Set()));
  let end;
  const ended = new Promise((resolve) => {
    end = resolve;
  });
  instance.foldEnds.add(end);
  folds.add(ended);
  fold.then(() => end(), () => end());
  ended.then(() => {
    instance.foldEnds.delete(end);
    folds.delete(ended);
  });
  return ended;
}

const settledPromise = Promise.resolve();

/**
 * How many visits may run inside one another: a hook (a getter, `now`, `countTokens`, the summarizer,
 * `$emit`, `onEvent`) may call the stage from its own visit, and each visit on the stack holds part of the
 * instance's stack. Far deeper than any pipeline nests, far short of the few hundred that overflow it (and
 * fail every visit in flight).
 */
const MAX_NESTED_VISITS = 32;
let nestedVisits = 0;

/**
 * The stack a call into the instance may need, as argument lists whose room (8 bytes a slot) the engine checks
 * before a call starts: 128 KiB for a visit, `summarize` or `extractive`'s summary (at least twice what a visit
 * was seen to need: README), 16 KiB for the entry helpers (`isSummaryEntry`…, called once per entry). Checked
 * before a call enters: an overflow inside fails every conversation's visit in flight; this refusal is the caller's.
 */
export const VISIT_STACK = Array(16384).fill(0);
export const HELPER_STACK = Array(2048).fill(0);
const takeArguments = () => {};
function noStack(what, needed) {
  try {
    Reflect.apply(takeArguments, undefined, needed);
  } catch {
    return new RangeError(`footprint-summarize: ${what} called with less than ${(needed.length * 8) / 1024} KiB of stack left is refused before it reads anything, so that no overflow inside the instance fails other conversations' visits: the caller is deep in its own recursion. Fix: call it from shallower code (after an await, say)`);
  }
  return undefined;
}

function guarded(visit) {
  const failure = noStack('a visit', VISIT_STACK) ?? currentFailure();
  if (failure !== undefined) return Promise.reject(failure);
  if (nestedVisits >= MAX_NESTED_VISITS) {
    const refusal = `footprint-summarize: a visit started inside ${MAX_NESTED_VISITS} visits still running is refused before it reads anything (recall and the store are untouched): a hook (a getter, now, countTokens, the summarizer, $emit or onEvent) calls the stage again from inside each visit. Fix: do not call the stage from its own hooks, or let the call wait for the visit (queueMicrotask)`;
    return Promise.reject(new RangeError(refusal));
  }
  const born = instance.failures;
  let visiting;
  nestedVisits += 1;
  try {
    visiting = visit();
  } catch (error) {
    note(error, born);
    handleSoon();
    return Promise.reject(newestFailure());
  } finally {
    nestedVisits -= 1;
  }
  // User code inside this visit may have started one that failed the instance.
  if (instance.failures !== born) return Promise.reject(instance.lastFailure);
  return new Promise((resolve, reject) => {
    instance.visits.add(reject);
    // Out of `visits` as it settles, so a failure handled later rejects only the visits still waiting.
    const settle = (outcome) => instance.visits.delete(reject) && outcome();
    visiting.then(
      (value) => settle(() => resolve(value)),
      // The promise's executor caught it, before the catch above could.
      (error) => settle(() => reject(fail(error, born))),
    );
  });
}

/** What the export returning now throws on purpose, as Rust named it. */
let deliberate;
export function refuse(error) {
  deliberate = { error };
  return error;
}

/**
 * Calls an export outside a visit (`summarize`, `extractive`'s summary…). What it throws on purpose is thrown
 * as is. Anything else has unwound through the instance (a trap; a stack overflow, which leaves its shadow
 * stack short for every later call): the instance ends as at a visit's failure, named.
 */
export function guardedExport(call, needed = VISIT_STACK) {
  const refused = noStack('a call of the package', needed) ?? currentFailure();
  if (refused !== undefined) throw refused;
  const born = instance.failures;
  deliberate = undefined;
  try {
    return call();
  } catch (error) {
    if (deliberate !== undefined && Object.is(deliberate.error, error)) throw error;
    note(error, born);
    handleSoon();
    throw newestFailure();
  } finally {
    deliberate = undefined; // named for this call alone
  }
}

/** Notes `error` as the failure of instance `born`, once, with no call (no lack of stack can lose it). */
function note(error, born) {
  if (instance.failures === born) {
    instance.failures += 1;
    instance.state = 'failing';
    instance.noted = error;
  }
}

/** The failure just noted: named once handled, else as it was thrown. */
function newestFailure() {
  return instance.state === 'failing' ? instance.noted : instance.lastFailure;
}

/**
 * Handles a noted failure now if the stack allows, else by a microtask once it unwinds (a promise's `then` is
 * V8's own; Node's `queueMicrotask` needs more stack), or by the next visit, task or call.
 */
function handleSoon() {
  try {
    settledPromise.then(handleFailure);
    handleFailure();
  } catch {} // left to the microtask
}

/** Ends the instance `born` counted for `error`, on a stack with room, and returns the failure, named. */
function fail(error, born) {
  note(error, born);
  handleFailure();
  return instance.lastFailure;
}

/**
 * A task of wasm-bindgen-futures' queue (it polls a visit after an await), or a wait's report (`onSettled`; its
 * arguments are passed on), run so that a failure inside it ends the instance as one in a visit's first part does
 * (the package entry's instanceFactory wraps every task).
 */
export function guardTask(task) {
  const born = instance.failures;
  return (...args) => {
    // A task of an instance that has failed polls only visits rejected already.
    if (currentFailure() !== undefined || instance.failures !== born) return;
    try {
      task(...args);
    } catch (error) {
      fail(error, born); // a task runs on a stack of its own
    }
  };
}

/** What keeps every visit out (undefined while a sound instance serves them), once a noted failure is handled. */
function currentFailure() {
  handleFailure();
  return instance.state === 'down' ? instance.failure : undefined;
}

/** Ends a failed instance: rejects its visits in flight, and replaces it if it can (else each call tries again). */
function handleFailure() {
  if (instance.state === 'failing') {
    const error = instance.noted;
    const what = `footprint-summarize: the stage's WebAssembly instance failed (${causeOf(error)}); this visit and every visit in flight are rejected`;
    instance.lastFailure = new Error(
      instance.replace !== undefined
        ? `${what}. A fresh instance serves later visits; the failed one's latches and single flights are gone, which costs at most a repeated summarizer call`
        : `${what}, as is every later visit. Reload the module (restart the process) to summarize again`,
      { cause: error },
    );
    instance.state = 'down';
    instance.failure = instance.lastFailure;
    instance.noted = undefined;
    for (const reject of instance.visits) reject(instance.lastFailure);
    instance.visits.clear();
    for (const end of instance.foldEnds) end();
    instance.foldEnds.clear();
  }
  if (instance.state !== 'down' || instance.replace === undefined) return;
  try {
    // Retires the failed instance and starts one (useEntryPoints makes it 'serving').
    instance.replace();
  } catch (error) {
    instance.failure = new Error(
      `footprint-summarize: the stage's WebAssembly instance failed and a fresh one cannot be made yet (${causeOf(error)}); every visit is rejected until one can, and each tries again`,
      { cause: error },
    );
    return;
  }
  try {
    console.warn(`[footprint-summarize] ${instance.lastFailure.message}.`);
  } catch {} // a console that throws has nowhere else to say it
}
