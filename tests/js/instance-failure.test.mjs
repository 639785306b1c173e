// The guard every stage function is made with (makeStage in
// src/bindings/glue.js), tested on the module itself: a failure inside the
// Wasm instance must never throw at the caller, must end every visit that
// waits inside the instance, and must keep later visits out of it. A real
// trap would end the instance this process's other tests use, so `run`
// stands in for the Wasm entry here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeStage } from '../../src/bindings/glue.js';

test('a failure inside the instance rejects that visit, every waiting one and every later one', async () => {
  let calls = 0;
  const run = () => {
    calls += 1;
    // The first visit waits forever, as a follower of a leader inside a dead instance would.
    if (calls === 1) return new Promise(() => {});
    throw new WebAssembly.RuntimeError('unreachable');
  };
  const stage = makeStage({}, run, run);
  const waiting = stage({});
  const waited = assert.rejects(waiting, /WebAssembly instance failed \(unreachable\)/);
  let failing;
  assert.doesNotThrow(() => {
    failing = stage({});
  });
  assert.ok(failing instanceof Promise, 'a real Promise, even now');
  await assert.rejects(failing, (error) => {
    assert.match(error.message, /WebAssembly instance failed \(unreachable\); this visit and every later one are rejected/);
    assert.ok(error.cause instanceof WebAssembly.RuntimeError);
    return true;
  });
  await waited;
  await assert.rejects(stage.fold([], {}), /WebAssembly instance failed/);
  assert.equal(calls, 2, 'a later visit does not enter the failed instance');
});

test('a visit that settles leaves nothing behind for a later failure to reject', async () => {
  // Each call gets a fresh copy of the module, so the failure above is not this test's.
  const { makeStage: fresh } = await import(`../../src/bindings/glue.js?fresh=${Date.now()}`);
  let fail = false;
  const run = (handle, scope) => {
    if (fail) throw new RangeError('Maximum call stack size exceeded');
    return Promise.resolve(scope.value);
  };
  const stage = fresh({}, run, run);
  assert.equal(await stage({ value: 7 }), 7, 'the visit resolves to what the instance resolved');
  fail = true;
  await assert.rejects(stage({ value: 8 }), /instance failed \(Maximum call stack size exceeded\)/);
});
