// www/conversation.js: how the playground reads a pasted conversation.
//
//   node --test tests/js/www-conversation.test.mjs

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConversationInputError, parseConversation, turnsToLines } from '../../www/conversation.js';

const idsByTurn = (turns) => turns.map((turn) => [turn.turn, turn.messages.map((m) => m.id)]);

test('JSON messages: a turn opens at each user message; leading non-user messages join turn 1', () => {
  const turns = parseConversation(
    JSON.stringify([
      { role: 'system', content: 'You are a support agent.' },
      { role: 'assistant', content: 'Hello! How can I help?' },
      { role: 'user', content: 'My desk is bent.' },
      { role: 'assistant', content: 'Sorry to hear that.' },
      { role: 'tool', content: '{"order":"LD-48213"}' },
      { role: 'user', content: 'Order LD-48213.' },
    ]),
  );
  assert.deepEqual(idsByTurn(turns), [
    [1, ['msg-1-0', 'msg-1-1', 'msg-1-2', 'msg-1-3', 'msg-1-4']],
    [2, ['msg-2-0']],
  ]);
  assert.deepEqual(turns[1].messages[0], { id: 'msg-2-0', role: 'user', content: 'Order LD-48213.' });
});

test('role: text lines; a line without a role continues the previous message', () => {
  const turns = parseConversation('user: first line\nsecond line\nAssistant:   answer\n\nuser: next');
  assert.deepEqual(
    turns.flatMap((turn) => turn.messages.map(({ role, content }) => [turn.turn, role, content])),
    [
      [1, 'user', 'first line\nsecond line'],
      [1, 'assistant', '  answer'],
      [2, 'user', 'next'],
    ],
  );
  assert.equal(turnsToLines(turns), 'user: first line\nsecond line\nassistant:   answer\nuser: next');
});

test('JSON entries keep their ids and source.turn; entries without a turn get one by the user rule', () => {
  const turns = parseConversation(
    JSON.stringify([
      { id: 'a', value: { role: 'user', content: 'q1' }, source: { turn: 7 } },
      { id: 'b', value: { role: 'assistant', content: 'a1' }, source: { turn: 7 } },
      { id: 'c', value: { role: 'user', content: 'q2' }, source: { turn: 9 } },
    ]),
  );
  assert.deepEqual(idsByTurn(turns), [
    [7, ['a', 'b']],
    [9, ['c']],
  ]);
  const derived = parseConversation(
    JSON.stringify([
      { id: 'x', value: { role: 'user', content: 'q1' } },
      { id: 'y', value: { role: 'assistant', content: 'a1' } },
      { id: 'z', value: { role: 'user', content: 'q2' } },
    ]),
  );
  assert.deepEqual(idsByTurn(derived), [
    [1, ['x', 'y']],
    [2, ['z']],
  ]);
});

test('bad input is refused with a message that says where', () => {
  const cases = [
    ['', /empty/],
    ['   \n ', /empty/],
    ['[{"role": "user", "content": "hi"},', /does not parse/],
    ['{"role": "user", "content": "hi"}', /single object/],
    ['[]', /array is empty/],
    ['[{"role": "user"}]', /Item 0 \(user\) has no `content` string/],
    ['[{"content": "hi"}]', /Item 0 has no `role` string/],
    ['["hi"]', /Item 0 is not an object/],
    ['hello there\nuser: hi', /Line 1 does not start with a role/],
    ['[{"id": "a", "value": {"role": "user", "content": "q"}}, {"id": "a", "value": {"role": "assistant", "content": "r"}}]', /repeats the id "a"/],
    ['[{"id": "a", "value": {"role": "user", "content": "q"}, "source": {"turn": 1.5}}]', /`source.turn` 1.5/],
    ['[{"id": "a", "value": {"role": "user", "content": "q"}, "source": {"turn": 3}}, {"id": "b", "value": {"role": "user", "content": "r"}, "source": {"turn": 2}}]', /Entry 1 \(b\) is in turn 2 after an entry of turn 3/],
    ['[{"value": {"role": "user", "content": "q"}}]', /Entry 0 has no `id` string/],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => parseConversation(input), (error) => error instanceof ConversationInputError && message.test(error.message), input);
  }
});
