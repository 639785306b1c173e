// Test doubles for the randomized test: a summarizer and a store that answer
// from the scenario's script and record every call, and a footprintjs-like
// scope. Each records whether it was reached while no run was in flight, so
// the harness can prove that late answers change nothing.

export const identityKey = (identity) => (identity === undefined ? '<no identity>' : JSON.stringify(identity));

function nonStringText(kind) {
  return { number: 42, undefined, null: null, object: { text: 'a summary' }, array: ['a summary'], boolean: true }[kind];
}

export function createSummarizer(ctx) {
  const { scenario, settings } = ctx;
  let nextAnswer = 0;
  const answer = (call, longTextChars) => {
    const script = scenario.summarizerScript[nextAnswer++ % scenario.summarizerScript.length];
    call.script = script;
    const respond = (text) => {
      if (settings.shape === 'callback') return text;
      return script.usage ? { content: text, usage: script.usage } : { content: text };
    };
    switch (script.kind) {
      case 'short':
        call.text = script.text;
        return Promise.resolve(respond(script.text));
      case 'delayed':
        call.text = script.text;
        // With a deadline configured the delay is a few microtask hops, which
        // always beat a timer: the outcome must not depend on scheduling.
        return settings.timeoutMs === undefined
          ? new Promise((resolve) => setTimeout(() => resolve(respond(script.text)), 1))
          : Promise.resolve()
              .then(() => undefined)
              .then(() => respond(script.text));
      case 'long':
        call.text = 'L'.repeat(longTextChars + script.extraChars);
        return Promise.resolve(respond(call.text));
      case 'non-string':
        return Promise.resolve(respond(nonStringText(script.valueKind)));
      case 'null-response':
        return Promise.resolve(null);
      case 'throw':
        throw new Error(script.message);
      case 'reject':
        return Promise.reject(new Error(script.message));
      case 'reject-value':
        return Promise.reject(script.message);
      case 'hang': {
        const hung = new Promise(() => {});
        ctx.hungCalls.push(hung);
        return hung;
      }
      case 'late': {
        const late = new Promise((resolve) => setTimeout(() => resolve(respond(script.text)), settings.timeoutMs * 3));
        ctx.pendingLate.push(late);
        return late;
      }
      default:
        throw new Error(`unknown summarizer script ${script.kind}`);
    }
  };
  const record = (fields) => {
    const call = { wave: ctx.waveIndex, late: ctx.inFlight === 0, ...fields };
    ctx.calls.push(call);
    return call;
  };
  if (settings.shape === 'callback') {
    return function summarizerCallback(messages) {
      const call = record({ messages });
      const spanChars = Array.isArray(messages)
        ? messages.slice(1).reduce((sum, message) => sum + (typeof message?.content === 'string' ? message.content.length : 0), 0)
        : 0;
      return answer(call, spanChars);
    };
  }
  return {
    complete(request) {
      const call = record({ request });
      const transcript = request?.messages?.[0]?.content;
      return answer(call, typeof transcript === 'string' ? transcript.length : 0);
    },
  };
}

export function createStore(ctx) {
  const { settings } = ctx;
  let nextAnswer = 0;
  return {
    put(identity, entry) {
      const script = ctx.scenario.storeScript[nextAnswer++ % ctx.scenario.storeScript.length];
      ctx.puts.push({ identity, entry, script, wave: ctx.waveIndex, late: ctx.inFlight === 0 });
      switch (script.kind) {
        case 'ok':
        case 'ok-delayed': {
          try {
            const stored = structuredClone(entry);
            const key = identityKey(identity);
            if (!ctx.written.has(key)) ctx.written.set(key, new Map());
            ctx.written.get(key).set(stored.id, stored);
          } catch (error) {
            ctx.violations.push({ wave: ctx.waveIndex, where: 'store.put', message: `the entry written cannot be cloned: ${error.message}` });
          }
          return script.kind === 'ok' ? Promise.resolve() : later(settings, () => undefined);
        }
        case 'throw':
          throw new Error(script.message);
        case 'reject':
          return Promise.reject(new Error(script.message));
        case 'reject-delayed':
          return later(settings, () => {
            throw new Error(script.message);
          });
        default:
          throw new Error(`unknown store script ${script.kind}`);
      }
    },
  };
}

/**
 * `scope.loaded` the way footprintjs hands it out (§4 step 1): an index read
 * returns a fresh element proxy, while iteration and every other member come
 * from the real array and yield the caller's own entries. A stage that reads
 * by index ends up with proxies in recall, which the identity checks catch.
 */
function liveArrayView(array) {
  const elementProxies = new Map();
  return new Proxy(array, {
    get(target, key) {
      const index = typeof key === 'string' ? Number(key) : NaN;
      if (Number.isInteger(index) && index >= 0 && index < target.length) {
        const element = target[index];
        if (element === null || typeof element !== 'object') return element;
        if (!elementProxies.has(index)) elementProxies.set(index, new Proxy(element, {}));
        return elementProxies.get(index);
      }
      const member = target[key];
      return typeof member === 'function' ? member.bind(target) : member;
    },
  });
}

export function createScope(run) {
  const { observation } = run;
  const target = { loaded: run.spec.liveProxy && Array.isArray(run.loaded) ? liveArrayView(run.loaded) : run.loaded };
  if (run.identity !== undefined) target.identity = run.identity;
  const scope = new Proxy(target, {
    set(object, key, value) {
      observation.writes.push({ key, value });
      object[key] = value;
      return true;
    },
    defineProperty(object, key, descriptor) {
      observation.writes.push({ key, value: descriptor.value });
      return Reflect.defineProperty(object, key, descriptor);
    },
    deleteProperty(object, key) {
      observation.writes.push({ key, deleted: true });
      return Reflect.deleteProperty(object, key);
    },
  });
  target.$emit = function $emit(type, payload) {
    observation.events.push({ type, payload, afterSettle: observation.settled });
    if (this !== scope) observation.emitThisOk = false;
    if (run.spec.emitThrows) throw new Error('$emit observer exploded');
  };
  return scope;
}

/**
 * `answer()` a little later. With a deadline configured (it bounds the write
 * too) the delay is a few microtask hops, which always beat a timer, so the
 * outcome does not depend on scheduling.
 */
function later(settings, answer) {
  if (settings.timeoutMs === undefined) return new Promise((resolve) => setTimeout(resolve, 1)).then(answer);
  return Promise.resolve()
    .then(() => undefined)
    .then(answer);
}
