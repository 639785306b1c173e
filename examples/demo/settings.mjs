// The demo's pipeline and stage settings, on their own: the background bench
// (bench/background.mjs) reads them without loading the demo's stores.

// Chosen so the 60 scripted turns show several folds, each one paid once and
// reused on the turns after it. The messages average ~90 characters and the
// package's label alone is ~330, so a fold pays off only over a span of
// several turns: hence minFoldEntries 16.
export const SETTINGS = Object.freeze({
  loadLimit: 48, // LoadRecent: the 48 newest entries (≈ 24 turns)
  budgetChars: 8000, // PickByBudget: generous, so it never hides what folding did
  triggerMinEntries: 12, // consider folding once 12 entries (6 turns) are loaded
  preserveRecent: 4, // the last 2 turns always stay verbatim
  minFoldEntries: 16, // fold at least 8 turns at a time
  extractiveMaxChars: 400, // the offline summary's budget
  openAiTimeoutMs: 30_000,
  // --tokens: one o200k_base counter for the stage and PickByBudget.
  preserveRecentTokens: 120, // the newest whole turns holding 120 tokens: 2 or 3 turns
  budgetTokens: 2000, // as generous as budgetChars
});
