// The Conversation panel: the sample, the paste editor and its error. It turns
// text into turns and says so in its status line; replaying them is the
// caller's part.

import { ConversationInputError, messageCount, parseConversation, turnsFromMessages, turnsToLines } from './conversation.js';
import { errorText } from './render.js';

const SAMPLE_URL = './sample-conversation.json';

export function createConversationPanel($, { notify, clearNotice }) {
  const input = $('conversation-input');
  const error = $('conversation-error');
  const status = $('conversation-status');
  const editor = $('conversation-editor');
  const usePastedButton = $('use-pasted');
  const loadSampleButton = $('load-sample');

  function announce(turns, description) {
    status.textContent = `${description}: ${turns.length} turns, ${messageCount(turns)} messages.`;
    return turns;
  }

  function showError(message) {
    if (message !== undefined) editor.open = true;
    error.hidden = message === undefined;
    error.textContent = message ?? '';
    input.toggleAttribute('aria-invalid', message !== undefined);
    if (message === undefined) clearNotice('conversation');
    else notify({ key: 'conversation', level: 'error', text: `The pasted conversation was not used. ${message}` });
  }

  /** The sample's turns, also put in the editor so it can be edited from there. */
  async function loadSample() {
    const response = await fetch(SAMPLE_URL);
    if (!response.ok) throw new Error(`${SAMPLE_URL} answered HTTP ${response.status}`);
    const turns = turnsFromMessages(await response.json());
    input.value = turnsToLines(turns);
    showError(undefined);
    return announce(turns, 'Sample support conversation');
  }

  /** The editor's turns, or undefined once the editor shows why they cannot be read. */
  function readPasted() {
    let turns;
    try {
      turns = parseConversation(input.value);
    } catch (parseError) {
      if (!(parseError instanceof ConversationInputError)) throw parseError;
      showError(parseError.message);
      return undefined;
    }
    showError(undefined);
    return announce(turns, 'Pasted conversation');
  }

  return {
    loadSample,
    readPasted,
    listen({ onUsePasted, onLoadSample }) {
      usePastedButton.addEventListener('click', onUsePasted);
      loadSampleButton.addEventListener('click', onLoadSample);
    },
    // The editor is long; on a phone it starts folded so the results come sooner.
    foldEditorOnPhones() {
      editor.open = window.matchMedia('(min-width: 900px)').matches;
    },
    showSampleUnavailable(loadError) {
      status.textContent = 'The sample conversation could not be loaded; paste one instead.';
      notify({ key: 'sample', level: 'error', text: `The sample conversation could not be loaded: ${errorText(loadError)}` });
    },
    setBusy(busy) {
      usePastedButton.disabled = busy;
      loadSampleButton.disabled = busy;
    },
  };
}
