// The real tokenizer the demo, the long-conversation bench and the tests
// count with: gpt-tokenizer's o200k_base (GPT-4o's encoding), the one the
// README recommends. Importing this module loads the 2.4 MB vocabulary.

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** o200k_base tokens of `text`; a user's "<|endoftext|>" counts as text instead of throwing. */
export const o200kTokens = (text) => countTokens(text, { disallowedSpecial: new Set() });
