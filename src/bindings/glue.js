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
  let timer;
  let settle;
  const promise = new Promise((resolve) => {
    settle = resolve;
    timer = setTimeout(resolve, ms, marker);
  });
  return {
    promise,
    clear: () => {
      clearTimeout(timer);
      settle(undefined);
    },
  };
}

/**
 * The stage function footprintjs calls, with `fold` attached, over a
 * handle (src/bindings/stage.rs). It always returns a real Promise.
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
  let visiting;
  try {
    visiting = visit();
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
  return new Promise((resolve, reject) => {
    inFlight.add(reject);
    visiting.then(
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
