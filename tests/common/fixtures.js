// JS fixtures for the shared wasm-bindgen test suite (tests/common/mod.rs):
// real JS stores, providers, callbacks, and a Proxy scope that records every
// get and set, shaped like footprintjs's (index reads hand out live element
// proxies; iteration yields the plain entries).

/** Entries `msg-{turn}-{i}` for turns 1..=turns, `perTurn` each, SPEC §2 shape. */
export function conversation(turns, perTurn, contentLength, conversationId) {
  const entries = [];
  for (let turn = 1; turn <= turns; turn++) {
    for (let i = 0; i < perTurn; i++) {
      const at = turn * 100 + i;
      entries.push({
        id: `msg-${turn}-${i}`,
        value: { role: i % 2 === 0 ? 'user' : 'assistant', content: filler(turn, i, contentLength), extra: 'kept' },
        version: 1,
        createdAt: at,
        updatedAt: at,
        lastAccessedAt: at,
        accessCount: 0,
        tier: 'hot',
        source: { turn, identity: { conversationId: conversationId ?? 'c1' } },
        custom: { unknownField: turn },
      });
    }
  }
  return entries;
}

function filler(turn, i, length) {
  const base = `turn ${turn} message ${i}: order #${1000 + turn} costs $${turn}.99. `;
  let text = '';
  while (text.length < length) text += base;
  return text.slice(0, length);
}

/** `entries` with `tag` before every content: another conversation with the same ids. */
export function tagged(entries, tag) {
  for (const entry of entries) entry.value.content = `${tag} ${entry.value.content}`;
  return entries;
}

export function entry(id, content, turn, updatedAt) {
  const e = { id, value: { role: 'user', content } };
  if (turn !== undefined) e.source = { turn };
  if (updatedAt !== undefined) e.updatedAt = updatedAt;
  return e;
}

export function summaryOf(id, coveredIds, toTurn) {
  return {
    id,
    value: { role: 'system', content: 'an earlier summary' },
    metadata: { summarizes: { fromTurn: 0, toTurn, entryCount: coveredIds.length, coveredIds, summarizedAtMs: 1 } },
    version: 1,
    updatedAt: 1,
  };
}

export function withProperty(object, path, value) {
  const keys = path.split('.');
  let target = object;
  for (const key of keys.slice(0, -1)) target = target[key];
  target[keys[keys.length - 1]] = value;
  return object;
}

/** A real promise with an own `then` that throws: `await` ignores it, so must the stage. */
function withThrowingThen(promise) {
  return Object.assign(promise, {
    then() {
      throw new Error('an own then was called');
    },
  });
}

/**
 * A real promise whose own `constructor` says `Promise` when first read and
 * then names a species whose promises never settle: `await` still follows
 * the promise itself, so must the stage.
 */
function withConstructorTrap(promise) {
  let reads = 0;
  Object.defineProperty(promise, 'constructor', {
    get() {
      reads += 1;
      if (reads === 1) return Promise;
      function Never(executor) {
        executor(
          () => {},
          () => {},
        );
      }
      return { [Symbol.species]: Never };
    },
  });
  return promise;
}

/**
 * A test harness. `options.reply` decides what the summarizer does:
 * { text } | { reject } | { throw } | { hang: true } | { value } | { lateText, afterMs }
 * | { echo: true, gate? } (the summary names the first message it was given)
 * | { gate: true, text } (answers when `release()` is called)
 * | { ownThen: text } (a promise of `text` with a `then` of its own that throws)
 * | { constructorTrap: text } (a promise of `text` whose own `constructor` lies).
 * `options.shape` is 'callback' or 'provider' (`model`, default 'mini-1';
 * `noUsage`: no usage in the response; `nanUsage`: a NaN input count);
 * `options.store` is 'ok', 'ownThen' (a resolved promise whose own `then` throws),
 * 'reject', 'reject404' (rejects with the number 404), 'hang' (never settles),
 * 'throw' or 'none'. `reply.rejectValue` rejects the call with that value as is.
 * `options.claims` gives the store a `putIfVersion` over `rows` (an object by
 * id, ttl checked against `options.storeNow`, default 1000): 'ok', 'taken'
 * (a live claim by someone else answers every first claim), 'reject' (it
 * rejects with ECONNREFUSED), 'bad' (it resolves to a string), 'keep' (a
 * give-up, any write with a version expected, is not applied), 'hangGiveUp' (a
 * give-up never answers) or 'slow' (each write happens and answers
 * `options.claimDelayMs` later). Every
 * conditional write is logged in `conditionalWrites`.
 */
export class Harness {
  constructor(options) {
    this.options = options;
    this.calls = [];
    this.signals = [];
    this.puts = [];
    this.conditionalWrites = [];
    this.rows = {};
    this.events = [];
    this.onEvents = [];
    this.emitThisWasScope = true;
    this.warnings = [];
    this.hungCalls = [];
    this.gets = [];
    this.sets = [];
    this.indexReads = 0;
    this.releases = [];
  }

  reply(input) {
    const reply = this.options.reply ?? { text: 'short summary' };
    if (reply.echo) {
      // The summary names the first message it was given: a summary handed
      // to another conversation shows whose messages it came from.
      const first = this.options.shape === 'provider' ? input.messages[0].content.split('\n')[1] : input[1].content;
      const text = `summary of: ${first.slice(0, 40)}`;
      if (reply.gate) return new Promise((resolve) => this.releases.push(() => resolve(this.wrap(text))));
      return Promise.resolve(this.wrap(text));
    }
    if (reply.throw !== undefined) throw new Error(reply.throw);
    if (reply.reject !== undefined) return Promise.reject(new Error(reply.reject));
    if ('rejectValue' in reply) return Promise.reject(reply.rejectValue);
    // An SDK's error whose fields are not strings (`error.message = 429`).
    if (reply.rejectError !== undefined) return Promise.reject(Object.assign(new Error(), reply.rejectError));
    if (reply.hang) return this.hung();
    if (reply.gate) return new Promise((resolve) => this.releases.push(() => resolve(this.wrap(reply.text))));
    if (reply.lateText !== undefined) {
      return new Promise((resolve) => setTimeout(() => resolve(this.wrap(reply.lateText)), reply.afterMs));
    }
    if (reply.ownThen !== undefined) return withThrowingThen(Promise.resolve(this.wrap(reply.ownThen)));
    if (reply.constructorTrap !== undefined) return withConstructorTrap(Promise.resolve(this.wrap(reply.constructorTrap)));
    if ('value' in reply) return Promise.resolve(this.options.shape === 'provider' ? { content: reply.value } : reply.value);
    return Promise.resolve(this.wrap(reply.text));
  }

  wrap(text) {
    if (this.options.shape !== 'provider') return text;
    if (this.options.noUsage) return { content: text };
    return { content: text, usage: this.options.nanUsage ? { input: NaN, output: 30 } : { input: 120, output: 30 } };
  }

  /** A conditional write as agentfootprint's stores make it (see `options.claims`). */
  async putIfVersion(identity, entry, expectedVersion) {
    this.conditionalWrites.push({ identity, entry, expectedVersion });
    const mode = this.options.claims;
    if (mode === 'reject') throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    if (mode === 'bad') return 'OK';
    if (mode === 'keep' && expectedVersion !== 0) return { applied: false, currentVersion: 7 };
    if (mode === 'hangGiveUp' && expectedVersion !== 0) return this.hung();
    if (mode === 'slow') await new Promise((resolve) => setTimeout(resolve, this.options.claimDelayMs));
    if (mode === 'taken' && expectedVersion === 0) return { applied: false, currentVersion: 1 };
    const now = this.options.storeNow ?? 1000;
    const current = this.rows[entry.id];
    const live = current !== undefined && !(typeof current.ttl === 'number' && current.ttl <= now);
    const applies = expectedVersion === 0 ? !live : live && current.version === expectedVersion;
    if (!applies) return { applied: false, currentVersion: live ? current.version : 0 };
    this.rows[entry.id] = entry;
    return { applied: true, currentVersion: entry.version };
  }

  /**
   * A call that never answers, held as a client's open socket holds one: a promise nothing holds is collected,
   * and the stage's wait on it ends (bench/soak.mjs --hung measures that).
   */
  hung() {
    const call = new Promise(() => {});
    this.hungCalls.push(call);
    return call;
  }

  /** Releases every gated call. */
  release() {
    for (const release of this.releases.splice(0)) release();
  }

  config(extra) {
    const config = {};
    if (this.options.shape === 'provider') {
      config.llm = {
        name: 'fake',
        complete: (request) => {
          this.calls.push(request);
          this.signals.push(request.signal);
          return this.reply(request);
        },
      };
      config.model = this.options.model ?? 'mini-1';
    } else {
      config.llm = (messages) => {
        this.calls.push(messages);
        return this.reply(messages);
      };
    }
    const storeMode = this.options.store ?? 'ok';
    if (storeMode !== 'none') {
      config.store = {
        put: (identity, entry) => {
          this.puts.push({ identity, entry });
          if (storeMode === 'throw') throw new Error('store is read-only');
          if (storeMode === 'reject') return Promise.reject(new Error('disk full'));
          if (storeMode === 'ownThen') return withThrowingThen(Promise.resolve());
          if (storeMode === 'reject404') return Promise.reject(404);
          if (storeMode === 'rejectStatusError') return Promise.reject(Object.assign(new Error(), { message: 503 }));
          if (storeMode === 'hang') return this.hung();
          this.rows[entry.id] = entry;
          return Promise.resolve();
        },
      };
      if (this.options.claims !== undefined) config.store.putIfVersion = (identity, entry, expected) => this.putIfVersion(identity, entry, expected);
    }
    config.onEvent = (type, payload) => this.onEvents.push({ type, payload });
    return Object.assign(config, extra ?? {});
  }

  /** A scope Proxy recording gets/sets, with a footprintjs-like `loaded`. */
  scope(loaded, identity) {
    const harness = this;
    const state = { loaded: loaded === undefined ? undefined : this.liveArray(loaded), identity };
    const target = {
      $emit(type, payload) {
        if (this !== proxy) harness.emitThisWasScope = false;
        harness.events.push({ type, payload });
      },
    };
    const proxy = new Proxy(target, {
      get(t, key) {
        if (key === '$emit') return t.$emit;
        harness.gets.push(String(key));
        return state[key];
      },
      set(t, key, value) {
        harness.sets.push({ key: String(key), value });
        state[key] = value;
        return true;
      },
    });
    this.state = state;
    return proxy;
  }

  liveArray(entries) {
    const harness = this;
    return new Proxy(entries, {
      get(target, key, receiver) {
        if (key === Symbol.iterator) return () => target[Symbol.iterator]();
        if (typeof key === 'string' && /^\d+$/.test(key)) {
          harness.indexReads++;
          return { live: true, position: Number(key) };
        }
        return Reflect.get(target, key, receiver);
      },
    });
  }

  /** Captures console.warn for the duration of a test. */
  captureWarnings() {
    this.originalWarn = console.warn;
    console.warn = (...args) => this.warnings.push(args.join(' '));
  }

  restoreWarnings() {
    console.warn = this.originalWarn;
  }

  json(field) {
    return JSON.stringify(this[field], (key, value) => (value instanceof AbortSignal ? { aborted: value.aborted } : value));
  }

  /** Recall as ids, from the scope state after a run. */
  recallIds() {
    return JSON.stringify((this.state.loaded ?? []).map((e) => e.id));
  }
}

export function ids(array) {
  return JSON.stringify(Array.from(array, (e) => e.id));
}

export function keysOf(object) {
  return JSON.stringify(Object.keys(object));
}

export function same(a, b) {
  return a === b;
}

export function json(value) {
  return JSON.stringify(value);
}

export function isPlain(value) {
  return JSON.stringify(structuredClone(value)) === JSON.stringify(value);
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs the stage `count` times concurrently over copies of the same recall. */
export function runConcurrently(stage, harness, loaded, identity, count) {
  const scopes = Array.from({ length: count }, () => ({
    loaded: [...loaded],
    identity,
    $emit(type, payload) {
      harness.events.push({ type, payload });
    },
  }));
  const runs = scopes.map((scope) => stage(scope));
  return { done: Promise.all(runs), scopes };
}
