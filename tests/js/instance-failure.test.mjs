// The guard every stage function is made with (makeStage in
// src/bindings/glue.js), tested on the module itself: a failure inside the
// Wasm instance must never throw at the caller, must end every visit that
// waits inside the instance, and must keep later visits out of it. A real
// trap would end the instance this process's other tests use, so `run`
// stands in for the Wasm entry here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { makeStage, useEntryPoints } from '../../src/bindings/glue.js';
import { runNode } from '../support/run-node.mjs';
import { bun, deno, pinnedNodes } from './lib/runtimes.mjs';

test('a failure inside the instance rejects that visit, every waiting one and every later one', async () => {
  let calls = 0;
  const run = () => {
    calls += 1;
    // The first visit waits forever, as a follower of a leader inside a dead instance would.
    if (calls === 1) return new Promise(() => {});
    throw new WebAssembly.RuntimeError('unreachable');
  };
  useEntryPoints(run, run);
  const stage = makeStage({});
  const waiting = stage({});
  const waited = assert.rejects(waiting, /WebAssembly instance failed \(unreachable\)/);
  let failing;
  assert.doesNotThrow(() => {
    failing = stage({});
  });
  assert.ok(failing instanceof Promise, 'a real Promise, even now');
  await assert.rejects(failing, (error) => {
    assert.match(error.message, /WebAssembly instance failed \(unreachable\); this visit and every visit in flight are rejected/);
    assert.match(error.message, /as is every later visit/, 'nothing replaces the instance here');
    assert.ok(error.cause instanceof WebAssembly.RuntimeError);
    return true;
  });
  await waited;
  await assert.rejects(stage.fold([], {}), /WebAssembly instance failed/);
  assert.equal(calls, 2, 'a later visit does not enter the failed instance');
});

test('a visit started inside another that fails the instance leaves the outer one rejected, not pending', async () => {
  const { makeStage: fresh, useEntryPoints: use } = await import(`../../src/bindings/glue.js?nested=${Date.now()}`);
  let stage;
  const run = (handle, scope) => {
    if (scope.inner) throw new WebAssembly.RuntimeError('unreachable');
    // User code inside the outer visit starts another visit, which fails.
    stage({ inner: true }).catch(() => {});
    return new Promise(() => {});
  };
  use(run, run);
  stage = fresh({});
  await assert.rejects(stage({}), /WebAssembly instance failed \(unreachable\)/);
});

test('a failed instance ends the background folds it was running: settled() and what waitUntil got both resolve', async () => {
  const glue = await import(`../../src/bindings/glue.js?background=${Date.now()}`);
  const handle = {};
  let ended;
  const run = (stageHandle, scope) => {
    if (scope.fail) throw new WebAssembly.RuntimeError('unreachable');
    // A background fold whose future the failed instance will never poll again.
    ended = glue.trackBackgroundFold(stageHandle, new Promise(() => {}));
    return Promise.resolve();
  };
  glue.useEntryPoints(run, run);
  const stage = glue.makeStage(handle);
  await stage({});
  const pending = Symbol('pending');
  const now = (promise) => Promise.race([promise.then(() => 'resolved'), new Promise((resolve) => setTimeout(resolve, 20, pending))]);
  assert.equal(await now(stage.settled()), pending, 'settled() waits for the running fold');
  await assert.rejects(stage({ fail: true }), /WebAssembly instance failed \(unreachable\)/);
  assert.equal(await now(ended), 'resolved', "waitUntil's promise resolves");
  assert.equal(await now(stage.settled()), 'resolved', 'settled() resolves');
});

test('with a replacement, the failing visit and those in flight reject, and later visits run on the new instance', async () => {
  const glue = await import(`../../src/bindings/glue.js?replace=${Date.now()}`);
  const warnings = [];
  const warn = console.warn;
  console.warn = (message) => warnings.push(String(message));
  try {
    const failing = (handle, scope) => {
      if (scope.fail) throw new WebAssembly.RuntimeError('unreachable');
      return new Promise(() => {});
    };
    glue.useEntryPoints(failing, failing);
    const replacement = (handle) => Promise.resolve(`served by the new instance for ${handle.name}`);
    glue.onInstanceFailure(() => glue.useEntryPoints(replacement, replacement));
    const stage = glue.makeStage({ name: 'a' });
    const waiting = stage({});
    await assert.rejects(stage({ fail: true }), /instance failed \(unreachable\).*A fresh instance serves later visits/s);
    await assert.rejects(waiting, /instance failed \(unreachable\)/, 'a visit in flight is not left pending');
    assert.equal(await stage({}), 'served by the new instance for a', 'a stage built before the failure');
    assert.equal(await glue.makeStage({ name: 'b' }).fold([], {}), 'served by the new instance for b');
  } finally {
    console.warn = warn;
  }
  assert.equal(warnings.length, 1, 'one warning says the instance was replaced');
  assert.match(warnings[0], /latches and single flights are gone/);
});

test('a trap in an export called outside a visit ends the instance as one in a visit does', async () => {
  const glue = await import(`../../src/bindings/glue.js?export=${Date.now()}`);
  const warn = console.warn;
  console.warn = () => {};
  try {
    const waitingForever = () => new Promise(() => {});
    glue.useEntryPoints(waitingForever, waitingForever);
    let replaced = 0;
    glue.onInstanceFailure(() => {
      replaced += 1;
      glue.useEntryPoints(waitingForever, waitingForever);
    });
    const waiting = glue.makeStage({})({});
    // `extractive`'s summary, say, running out of memory inside Wasm.
    const trap = () => glue.guardedExport(() => {
      throw new WebAssembly.RuntimeError('unreachable');
    });
    assert.throws(trap, /WebAssembly instance failed \(unreachable\).*A fresh instance serves later visits/s);
    await assert.rejects(waiting, /instance failed \(unreachable\)/, 'a visit in flight is not left pending');
    assert.equal(replaced, 1);
    // What an export throws on purpose (a refused config), named as such, is its own, and ends nothing.
    assert.throws(() => glue.guardedExport(() => {
      throw glue.refuse(new TypeError('summarize(config): `llm` is required'));
    }), /^TypeError: summarize\(config\): `llm` is required$/);
    assert.equal(glue.guardedExport(() => 42), 42);
    assert.equal(replaced, 1);
    // Anything else unwound through the instance (a stack overflow inside it) and ends it too.
    assert.throws(() => glue.guardedExport(() => {
      throw new RangeError('Maximum call stack size exceeded');
    }), /WebAssembly instance failed \(Maximum call stack size exceeded\)/);
    assert.equal(replaced, 2);
    // A refusal named in an earlier call does not excuse a later one's exception.
    const refused = glue.refuse(new TypeError('refused'));
    assert.throws(() => glue.guardedExport(() => {
      throw refused;
    }), /WebAssembly instance failed \(refused\)/);
    assert.equal(replaced, 3);
    // Nor does a refusal of a call nested inside this one (a getter calling the package).
    const inner = new TypeError('inner refusal');
    assert.throws(() => glue.guardedExport(() => {
      try {
        glue.guardedExport(() => {
          throw glue.refuse(inner);
        });
      } catch {
        // The getter caught it, and the outer call then unwound with it.
      }
      throw inner;
    }), /WebAssembly instance failed \(inner refusal\)/);
    assert.equal(replaced, 4);
  } finally {
    console.warn = warn;
  }
});

// The real package, in this process: what it throws on purpose reaches the
// caller as thrown, and the instance serving every conversation goes on.
test('the package\'s refusals are thrown as they are, and end no instance', async () => {
  const { summarize, extractive } = await import('../../pkg/dist/index.mjs');
  const warnings = [];
  const warn = console.warn;
  console.warn = (message) => warnings.push(String(message));
  try {
    assert.throws(() => summarize({}), (error) => error.name === 'TypeError' && error.message.startsWith('summarize(config): '));
    assert.throws(() => extractive({ maxchars: 1 }), (error) => error.message.startsWith('extractive(options): '));
    const summarizer = extractive();
    // An array that throws when read is refused through calls that catch, not unwound through the instance.
    const throwing = new Proxy([], { get: () => { throw new Error('trap'); } });
    await assert.rejects(summarizer(throwing), /^TypeError: extractive summarizer: `messages` must be an array of \{ role, content \}; received an object that cannot be read \(reading it threw: trap\)/);
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    await assert.rejects(summarizer(proxy), /^TypeError: extractive summarizer: `messages` must be an array of \{ role, content \}; received an unreadable value/);
    const fold = await summarize({ triggerMinEntries: 4, preserveRecent: 2, llm: summarizer }).fold(
      Array.from({ length: 8 }, (_, n) => ({ id: `m-${n}`, value: { role: 'user', content: `Order #${n} ships on May ${n + 1}. ${'Thank you for your patience with us. '.repeat(5)}` }, source: { turn: n + 1 } })),
      { conversationId: 'refusals' },
    );
    assert.equal(fold.recall[0].id, 'msg-summary-1-6');
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(warnings, [], 'no instance failed, and nothing was warned');
});

// The real package, in a child process per Node: a host deep in its own
// recursion calls it with almost no stack left. The deep call is refused
// before it enters the instance, so it is that caller's failure alone,
// where an overflow inside the instance would fail the instance, and with
// it every other conversation's visit in flight.
const refusedAtTheLimit = /^rejected: footprint-summarize: a visit called with less than 128 KiB of stack left is refused before it reads anything/;
const stackLimit = (node, mode) =>
  runNode(fileURLToPath(new URL('./fixtures/stage-at-the-stack-limit.mjs', import.meta.url)), mode ? [mode] : [], {
    node: node.command,
    nodeArgs: node.args ?? [],
    timeout: 60_000,
  });
// The fixture calling the package at every level of a recursion from the
// stack limit up (`mode`): the calls ran at every level, the deepest were
// refused before they entered the instance, and none failed it.
async function callsAtEveryFrame(node, mode) {
  const { code, stdout, stderr } = await stackLimit(node, mode);
  assert.equal(code, 0, stderr.slice(-2000));
  const outcome = JSON.parse(stdout);
  const calls = JSON.stringify(outcome.calls);
  assert.ok(outcome.calls.done > 1000, `the calls ran at every level (${calls})`);
  assert.ok(outcome.calls.refused > 0, `the deepest calls were refused before entering the instance (${calls})`);
  assert.equal(outcome.calls.instanceFailed + outcome.instanceFailures, 0, `no call failed the instance (${calls})`);
  return outcome;
}
// V8 (Node, Deno) and JavaScriptCore (Bun). A visit at every level of
// JavaScriptCore's far deeper stack makes tens of thousands of folds, so
// that one runs on V8.
const nodes = [
  { name: `Node ${process.versions.node}`, command: process.execPath, everyFrame: true },
  ...pinnedNodes.map((node) => ({ ...node, everyFrame: true })),
  bun,
  { ...deno, args: ['run', '--allow-read', '--allow-env'] },
];
for (const node of nodes) {
  test(`${node.name}: a visit at the stack limit is refused alone: the other conversations' visits fold, and no instance fails`, async () => {
    const { code, stdout, stderr } = await stackLimit(node);
    assert.equal(code, 0, stderr.slice(-2000));
    const outcome = JSON.parse(stdout);
    assert.match(outcome.deep, refusedAtTheLimit);
    assert.deepEqual(outcome.waiting, ['resolved', 'resolved', 'resolved'], 'each waiting visit settles from its own summarizer (one failed, two answered)');
    assert.equal(outcome.instanceFailures, 0, 'no instance failed');
    assert.equal(outcome.afterwards, 'msg-summary-1-5', 'a visit afterwards folds');
    assert.equal(outcome.deepAfterwards, 'msg-summary-1-5', 'the deep stage folds afterwards too');
  });

  // A host that calls the stage at every level of its recursion, from the
  // stack limit up: the deepest visits are refused, the others fold, and
  // the instance serving them all never fails.
  if (node.everyFrame) test(`${node.name}: visits at every level of a recursion from the stack limit leave the package sound`, async () => {
    const { code, stdout, stderr } = await stackLimit(node, '--every-frame');
    assert.equal(code, 0, stderr.slice(-2000));
    const outcome = JSON.parse(stdout);
    assert.ok(outcome.deepVisits > 100, `the stage was called at every level (${outcome.deepVisits} visits)`);
    assert.equal(outcome.deepPending, 0, 'every visit settled');
    assert.ok(outcome.deepRefused > 0 && outcome.deepRefused < outcome.deepVisits, `the deepest were refused, the others ran (${outcome.deepRefused} of ${outcome.deepVisits})`);
    assert.equal(outcome.instanceFailures, 0, 'no instance failed');
    assert.equal(outcome.afterwards, 'msg-summary-1-5', 'a new stage folds afterwards');
    assert.equal(outcome.deepAfterwards, 'msg-summary-1-5', 'the deep stage folds afterwards');
  });

  // A host that builds a stage at every level of a recursion, from the stack
  // limit up, before anything else ran. A build that overflows the stack
  // inside the instance unwinds through it without restoring its shadow
  // stack, so an instance that went on serving would run every conversation
  // on a shadow stack shorter each time, until it wrote out of bounds: the
  // package stays sound, and stages built afterwards fold.
  test(`${node.name}: stages built at every level of a recursion from the stack limit leave the package sound`, async () => {
    const outcome = await callsAtEveryFrame(node, '--summarize-every-frame');
    assert.equal(outcome.deep, 'resolved', 'a stage built after them folds');
    assert.equal(outcome.afterwards, 'msg-summary-1-5', 'a new stage folds afterwards');
    assert.equal(outcome.deepAfterwards, 'msg-summary-1-5', 'the deep stage folds afterwards');
  });

  // The entry helpers, which a pipeline may call once per entry, check for
  // less stack (16 KiB): called at every level of a recursion from the stack
  // limit up, the deepest are refused and no instance fails (without the
  // check, instances failed).
  test(`${node.name}: entry helpers called at every level of a recursion from the stack limit leave the package sound`, async () => {
    const outcome = await callsAtEveryFrame(node, '--helpers-every-frame');
    assert.equal(outcome.afterwards, 'msg-summary-1-5', 'a new stage folds afterwards');
  });
}
