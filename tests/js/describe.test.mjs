// `describe` (src/bindings/glue.js) names the values events and errors
// quote. What it writes is copied into the shared Wasm instance, so its text
// stays short whatever the value: a symbol's description or a bigint can be
// as long as any string, and copying one of 512 MB would fail the instance,
// and every other conversation's visit in flight with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describe as describeValue } from '../../src/bindings/glue.js';

test('a value is described in at most 40 characters of its own text', () => {
  const long = 'y'.repeat(1_000_000);
  assert.equal(describeValue(long), `a string ("${'y'.repeat(40)}…")`);
  assert.equal(describeValue(Symbol(long)), `a symbol (${'y'.repeat(40)}…)`);
  assert.equal(describeValue(10n ** 1000n), `a bigint (1${'0'.repeat(39)}…)`);
  assert.equal(describeValue(Symbol()), 'a symbol ()');
  assert.equal(describeValue(42), 'a number (42)');
  assert.equal(describeValue(null), 'null');
  assert.equal(describeValue([1, 2]), 'an array (length 2)');
  assert.equal(describeValue(new Map()), 'a Map');
  assert.equal(describeValue(() => 1), 'a function');
  const revoked = Proxy.revocable([], {});
  revoked.revoke();
  assert.equal(describeValue(revoked.proxy), 'an unreadable value');
});
