// Reads the Stage settings and Summarizer fields into what the stage is built
// with. A value the page itself can judge (entries loaded per turn, the
// endpoint URL) throws a message shown as it is; the stage options are left
// for the package to refuse, in its own words.

import { openAiCompatibleProvider } from './openai-provider.js';

// Read through the form, not the fieldsets: only the form's collection gives
// a radio group's checked value.
const field = (form, name) => form.elements[name];

/** Numeric fields: blank means "use the package default", so the key is left out. */
function numberSetting(form, name) {
  const raw = field(form, name).value.trim();
  return raw === '' ? undefined : Number(raw);
}

export function stageOptions(form) {
  const preserveRecentTokens = numberSetting(form, 'preserveRecentTokens');
  const options = {
    triggerMinEntries: numberSetting(form, 'triggerMinEntries'),
    // preserveRecentTokens replaces preserveRecent: the package refuses both.
    preserveRecent: preserveRecentTokens === undefined ? numberSetting(form, 'preserveRecent') : undefined,
    triggerMinTokens: numberSetting(form, 'triggerMinTokens'),
    preserveRecentTokens,
    minFoldEntries: numberSetting(form, 'minFoldEntries'),
    maxSummaries: numberSetting(form, 'maxSummaries'),
    summaryTier: field(form, 'summaryTier').value,
    timeoutMs: numberSetting(form, 'timeoutMs'),
    keepDetails: field(form, 'keepDetails').checked || undefined,
  };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

export function loadCount(form) {
  const count = numberSetting(form, 'loadCount');
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`"Entries loaded per turn" must be a whole number of at least 1, got ${JSON.stringify(field(form, 'loadCount').value)}.`);
  }
  return count;
}

export function usesEndpoint(form) {
  return field(form, 'summarizer').value === 'endpoint';
}

export function summarizerConfig(form, api) {
  if (field(form, 'summarizer').value === 'extractive') {
    if (typeof api.extractive !== 'function') {
      throw new Error('this build of the package has no `extractive` export; rebuild it, or use an endpoint.');
    }
    return { llm: api.extractive() };
  }
  const baseUrl = field(form, 'baseUrl').value.trim();
  if (!/^https?:\/\/\S+$/.test(baseUrl)) {
    throw new Error('Enter the endpoint base URL, e.g. http://127.0.0.1:11434/v1 (the page calls {base}/chat/completions).');
  }
  const model = field(form, 'model').value.trim();
  // An empty model goes to the stage as undefined on purpose: the package
  // refuses a provider without a model, and its message explains why.
  return {
    llm: openAiCompatibleProvider({ baseUrl, apiKey: field(form, 'apiKey').value }),
    model: model === '' ? undefined : model,
  };
}

/**
 * The token counter the settings name: `stage` is the stage's
 * `countTokens` (undefined leaves counting to the package), `page` counts
 * the page's own figures alike (undefined for characters only).
 * gpt-tokenizer is imported on first use (its o200k_base vocabulary is 2.4 MB).
 */
export async function tokenCounters(form) {
  const choice = field(form, 'tokenCounter').value;
  const quarter = (text) => Math.ceil(text.length / 4);
  if (choice === 'approximate') return { stage: quarter, page: quarter };
  if (choice === 'o200k') {
    const { countTokens } = await import('../node_modules/gpt-tokenizer/esm/encoding/o200k_base.js');
    const o200k = (text) => countTokens(text, { disallowedSpecial: new Set() });
    return { stage: o200k, page: o200k };
  }
  // None chosen: with a token option the package counts ceil(length / 4), and so does the page.
  const tokenOption = numberSetting(form, 'triggerMinTokens') !== undefined || numberSetting(form, 'preserveRecentTokens') !== undefined;
  return { stage: undefined, page: tokenOption ? quarter : undefined };
}
