//! The keys `summarize(config)` reads, and the nearest one to a key it does not.

/// Declares [`Key`] from one list of variants and the names users write:
/// the enum, [`Key::ALL`] in declaration order, [`Key::name`] and
/// [`KNOWN_KEYS`] cannot drift.
macro_rules! keys {
    ($($key:ident => $name:literal,)*) => {
        /// Every key `summarize(config)` reads; any other is refused at build.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Key {
            $($key,)*
        }

        impl Key {
            pub const ALL: [Key; [$(Key::$key),*].len()] = [$(Key::$key),*];

            /// The key as the user writes it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Key::$key => $name,)*
                }
            }
        }

        /// [`Key::ALL`]'s names, in the same order.
        pub const KNOWN_KEYS: [&str; Key::ALL.len()] = [$($name),*];
    };
}

keys! {
    Llm => "llm",
    Model => "model",
    Store => "store",
    TriggerMinEntries => "triggerMinEntries",
    PreserveRecent => "preserveRecent",
    MinFoldEntries => "minFoldEntries",
    SystemPrompt => "systemPrompt",
    TtlMs => "ttlMs",
    SummaryTier => "summaryTier",
    StrategyId => "strategyId",
    OnEvent => "onEvent",
    TimeoutMs => "timeoutMs",
    Now => "now",
    MaxSummaries => "maxSummaries",
    TriggerMinChars => "triggerMinChars",
    Claims => "claims",
    ClaimLeaseMs => "claimLeaseMs",
    KeepDetails => "keepDetails",
    CountTokens => "countTokens",
    TriggerMinTokens => "triggerMinTokens",
    PreserveRecentTokens => "preserveRecentTokens",
    MinFoldTokens => "minFoldTokens",
    Background => "background",
    WaitUntil => "waitUntil",
    MaxSpanChars => "maxSpanChars",
    MaxSpanTokens => "maxSpanTokens",
}

/// The known key closest to `key` (a typo such as `preserveRecnet`), when
/// one is within a few edits of it, ASCII case aside.
pub fn nearest_known_key(key: &str) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    KNOWN_KEYS
        .iter()
        .map(|known| (strsim::levenshtein(&key, &known.to_ascii_lowercase()), *known))
        .filter(|&(distance, known)| distance <= (known.len() / 3).max(1))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, known)| known)
}
