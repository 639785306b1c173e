// Turns what a person pastes into the conversation the playground simulates.
//
// Accepted input, decided by the first non-blank character:
//   `[`  → JSON: an array of messages `{ role, content }`, or an array of memory
//          entries `{ id, value: { role, content }, source?: { turn } }`;
//   else → lines `role: text`; a line without a known role prefix continues the
//          previous message (so multi-line messages paste as they are).
//
// The result is a list of turns, each `{ turn, messages: [{ id, role, content }] }`.
// A turn opens at each user message, the way a chat turn does; messages before
// the first user message belong to turn 1. Pasted entries that carry a numeric
// `source.turn` keep it.

const KNOWN_ROLES = ['user', 'assistant', 'system', 'tool'];
const ROLE_LINE = new RegExp(`^\\s*(${KNOWN_ROLES.join('|')})\\s*:\\s?(.*)$`, 'i');

/** A pasted conversation that cannot be read; `message` says where and why. */
export class ConversationInputError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ConversationInputError';
  }
}

export function parseConversation(text) {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new ConversationInputError('The conversation is empty. Paste a JSON array or `role: text` lines.');
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    throw new ConversationInputError(
      'Expected a JSON array (starting with `[`), got a single object. Wrap the messages in `[ … ]`.',
    );
  }
  return trimmed.startsWith('[') ? turnsFromJson(trimmed) : turnsFromLines(trimmed);
}

/** Messages `{ role, content }` → turns, with ids `msg-{turn}-{index in turn}`. */
export function turnsFromMessages(messages) {
  const turns = [];
  for (const { role, content } of messages) {
    const current = turns[turns.length - 1];
    const opensTurn = !current || (role === 'user' && current.messages.some((m) => m.role === 'user'));
    const turn = opensTurn ? { turn: turns.length + 1, messages: [] } : current;
    if (opensTurn) turns.push(turn);
    turn.messages.push({ id: `msg-${turn.turn}-${turn.messages.length}`, role, content });
  }
  return turns;
}

/** The conversation back as `role: text` lines, for editing in the text area. */
export function turnsToLines(turns) {
  return turns
    .flatMap((turn) => turn.messages)
    .map((message) => `${message.role}: ${message.content}`)
    .join('\n');
}

export function messageCount(turns) {
  return turns.reduce((count, turn) => count + turn.messages.length, 0);
}

function turnsFromJson(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConversationInputError(`The pasted JSON does not parse: ${error.message}`);
  }
  if (!Array.isArray(parsed)) {
    throw new ConversationInputError('Expected a JSON array of messages or entries.');
  }
  if (parsed.length === 0) {
    throw new ConversationInputError('The JSON array is empty: there is no conversation to simulate.');
  }
  const looksLikeEntries = isPlainObject(parsed[0]) && 'value' in parsed[0];
  return looksLikeEntries ? turnsFromEntries(parsed) : turnsFromMessages(parsed.map(readMessage));
}

function readMessage(item, index) {
  if (!isPlainObject(item)) {
    throw new ConversationInputError(`Item ${index} is not an object; each message needs \`role\` and \`content\`.`);
  }
  if (typeof item.role !== 'string' || item.role.trim() === '') {
    throw new ConversationInputError(`Item ${index} has no \`role\` string.`);
  }
  if (typeof item.content !== 'string') {
    throw new ConversationInputError(`Item ${index} (${item.role}) has no \`content\` string.`);
  }
  return { role: item.role.trim(), content: item.content };
}

function turnsFromEntries(entries) {
  const seenIds = new Set();
  const read = entries.map((entry, index) => {
    if (!isPlainObject(entry) || typeof entry.id !== 'string' || entry.id === '') {
      throw new ConversationInputError(`Entry ${index} has no \`id\` string.`);
    }
    if (seenIds.has(entry.id)) {
      throw new ConversationInputError(`Entry ${index} repeats the id "${entry.id}"; ids must be unique.`);
    }
    seenIds.add(entry.id);
    const { role, content } = readMessage(entry.value, index);
    const turn = entry.source?.turn;
    if (turn !== undefined && !(Number.isInteger(turn) && turn >= 0)) {
      throw new ConversationInputError(`Entry ${index} (${entry.id}) has \`source.turn\` ${JSON.stringify(turn)}; expected a whole number.`);
    }
    return { id: entry.id, role, content, turn };
  });
  // Entries without a turn get one from the user-message rule, so a paste of
  // bare entries still folds along turn boundaries.
  const derivedTurns = turnsFromMessages(read);
  const turns = [];
  read.forEach((message, index) => {
    const turn = message.turn ?? derivedTurnOf(derivedTurns, index);
    const current = turns[turns.length - 1];
    if (current && turn < current.turn) {
      throw new ConversationInputError(
        `Entry ${index} (${message.id}) is in turn ${turn} after an entry of turn ${current.turn}; list entries oldest first.`,
      );
    }
    if (!current || turn !== current.turn) turns.push({ turn, messages: [] });
    turns[turns.length - 1].messages.push({ id: message.id, role: message.role, content: message.content });
  });
  return turns;
}

function derivedTurnOf(turns, messageIndex) {
  let seen = 0;
  for (const turn of turns) {
    seen += turn.messages.length;
    if (messageIndex < seen) return turn.turn;
  }
  return turns.length;
}

function turnsFromLines(text) {
  const messages = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const match = ROLE_LINE.exec(line);
    if (match) {
      messages.push({ role: match[1].toLowerCase(), content: match[2] });
    } else if (messages.length > 0) {
      messages[messages.length - 1].content += `\n${line}`;
    } else if (line.trim() !== '') {
      throw new ConversationInputError(
        `Line ${index + 1} does not start with a role. Write \`role: text\` lines (roles: ${KNOWN_ROLES.join(', ')}), or paste a JSON array.`,
      );
    }
  });
  return turnsFromMessages(messages.map((m) => ({ role: m.role, content: m.content.trimEnd() })));
}

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
