//! The validated stage configuration and the build-time refusal messages.
//! The bindings read the JS config object; the rules and the words live here.

use std::fmt;

use super::details::PinBounds;
use super::format::{
    label_text, rolling_system_prompt, utf16_len, NumberedText, CALLBACK_AUTHOR, DEFAULT_STRATEGY_ID,
    DEFAULT_SYSTEM_PROMPT, LABEL_SEPARATOR,
};
use super::js_number::js_number_to_string;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Hot,
    Warm,
    Cold,
}

impl Tier {
    /// `summaryTier` when it is not given.
    pub const DEFAULT: Tier = Tier::Cold;

    /// `summaryTier` as given, and its refusal: a string that names no tier
    /// is out of range, anything else the wrong type.
    pub fn option(name: Option<&str>, refused: impl FnOnce() -> ConfigError) -> Result<Tier, ConfigError> {
        match name {
            Some(name) => Tier::parse(name).ok_or_else(|| ConfigError { class: ErrorClass::RangeError, ..refused() }),
            None => Err(refused()),
        }
    }

    pub fn parse(name: &str) -> Option<Tier> {
        match name {
            "hot" => Some(Tier::Hot),
            "warm" => Some(Tier::Warm),
            "cold" => Some(Tier::Cold),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Hot => "hot",
            Tier::Warm => "warm",
            Tier::Cold => "cold",
        }
    }
}

/// Which summarizer shape was configured; the provider shape carries its model.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Provider { model: String },
    Callback,
}

#[derive(Clone, Debug)]
pub struct StageConfig {
    /// Fixed at `new`: `header` names the shape's author.
    shape: Shape,
    pub trigger_min_entries: usize,
    pub preserve_recent: usize,
    pub min_fold_entries: usize,
    /// Beyond the original: at most this many summaries stay in recall; a
    /// fold that would leave more takes the oldest in, in the same call.
    pub max_summaries: Option<usize>,
    /// Beyond the original: a fold is also considered once the raw recall's
    /// UTF-16 length reaches this, whatever the entry count.
    pub trigger_min_chars: Option<usize>,
    pub ttl_ms: Option<f64>,
    pub timeout_ms: Option<f64>,
    /// Beyond the original (`claims: true`): the lease of the claim a
    /// leader writes through the store's `putIfVersion` before paying for a
    /// span, so a fleet of processes sharing the store pays for it once.
    /// `None` when claims are off.
    pub claim_lease_ms: Option<f64>,
    /// Beyond the original (`keepDetails`): a line after the summarizer's
    /// text lists the details it dropped, within these bounds.
    pub keep_details: Option<PinBounds>,
    /// Beyond the original: present when the stage counts tokens
    /// (`countTokens`, `triggerMinTokens`, `preserveRecentTokens` or
    /// `minFoldTokens` given).
    pub tokens: Option<TokenOptions>,
    /// `summaryTier`: the tier the summary and the claim are written with.
    pub tier: Tier,
    /// Names the stage in its events and its warning.
    pub strategy_id: String,
    /// `systemPrompt`, when given.
    pub system_prompt: Option<String>,
}

/// Budgets in tokens, counted by `countTokens` (or `ceil(length / 4)`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TokenOptions {
    /// A fold is also considered once the raw recall holds this many tokens.
    pub trigger_min: Option<f64>,
    /// The verbatim tail: the newest whole turns until they hold at least
    /// this many tokens (in place of `preserveRecent`).
    pub preserve_recent: Option<f64>,
    /// No call for a raw span holding fewer tokens than this (`minFoldTokens`).
    pub min_fold: f64,
}

impl StageConfig {
    /// The documented defaults, for the given shape.
    pub fn new(shape: Shape) -> StageConfig {
        StageConfig {
            shape,
            trigger_min_entries: 20,
            preserve_recent: 5,
            min_fold_entries: 2,
            max_summaries: None,
            trigger_min_chars: None,
            ttl_ms: None,
            timeout_ms: None,
            claim_lease_ms: None,
            keep_details: None,
            tokens: None,
            tier: Tier::DEFAULT,
            strategy_id: DEFAULT_STRATEGY_ID.to_owned(),
            system_prompt: None,
        }
    }

    /// What a summary's content starts with, before the summarizer's text:
    /// the label naming this shape's author, and its separator. From the
    /// first and last turns and the number of entries folded.
    pub fn header(&self) -> NumberedText {
        label_text(self.model().unwrap_or(CALLBACK_AUTHOR)).followed_by(LABEL_SEPARATOR)
    }

    /// UTF-16 length of `header().render(numbers)`.
    pub fn label_chars(&self, numbers: &[f64]) -> usize {
        utf16_len(&self.header().render(numbers))
    }

    /// SPEC §1's counts and times over the defaults, each as `number(key)`
    /// finds it (None when absent), checked in this order.
    pub fn read_numbers(
        &mut self,
        number: impl Fn(Key) -> Result<Option<f64>, ConfigError>,
    ) -> Result<(), ConfigError> {
        let count = |key: Key, default| {
            number(key)?.map_or(Ok(default), |n| count_option(SUMMARIZE_CALL, key.name(), n, default))
        };
        self.trigger_min_entries = count(Key::TriggerMinEntries, self.trigger_min_entries)?;
        self.preserve_recent = count(Key::PreserveRecent, self.preserve_recent)?;
        self.min_fold_entries = count(Key::MinFoldEntries, self.min_fold_entries)?;
        self.max_summaries = number(Key::MaxSummaries)?.map(max_summaries_option).transpose()?;
        self.trigger_min_chars = number(Key::TriggerMinChars)?.map(trigger_chars_option).transpose()?;
        self.ttl_ms = number(Key::TtlMs)?.map(|n| ttl_option(Key::TtlMs.name(), n)).transpose()?;
        self.timeout_ms = number(Key::TimeoutMs)?.map(|n| timeout_option(Key::TimeoutMs.name(), n)).transpose()?;
        Ok(())
    }

    /// The configured instruction, or the default (the rolling one when
    /// earlier summaries may be folded in).
    pub fn instruction(&self) -> String {
        match (&self.system_prompt, self.max_summaries) {
            (Some(prompt), _) => prompt.clone(),
            (None, Some(_)) => rolling_system_prompt(),
            (None, None) => DEFAULT_SYSTEM_PROMPT.to_owned(),
        }
    }

    /// Whether an option beyond the original shapes what this stage folds
    /// (a token option, `maxSummaries`, `triggerMinChars` or
    /// `keepDetails`). Then it also declines a call whose refusal is
    /// foreseeable (`Candidate::predicted_refusal`); without one it calls
    /// wherever the original does.
    pub fn foresees_refusals(&self) -> bool {
        self.tokens.is_some()
            || self.max_summaries.is_some()
            || self.trigger_min_chars.is_some()
            || self.keep_details.is_some()
    }

    pub fn model(&self) -> Option<&str> {
        match &self.shape {
            Shape::Provider { model } => Some(model),
            Shape::Callback => None,
        }
    }
}

/// Which JS error class a refusal is thrown as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    Error,
    TypeError,
    RangeError,
}

/// A build-time refusal: thrown synchronously by `summarize(config)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub class: ErrorClass,
    pub message: String,
}

/// The calls whose arguments are checked, as their errors name them.
pub const SUMMARIZE_CALL: &str = "summarize(config)";
pub const EXTRACTIVE_CALL: &str = "extractive(options)";

impl ConfigError {
    /// "CALL: `key` must be EXPECTED; received VALUE. FIX" — the shape every
    /// refusal except the two parity messages takes.
    pub fn invalid(call: &str, class: ErrorClass, key: &str, expected: &str, received: &str, fix: &str) -> ConfigError {
        ConfigError { class, message: format!("{call}: `{key}` must be {expected}; received {received}. {fix}") }
    }

    /// `summarize(config)`'s refusal of a `key` that holds a value of the
    /// wrong type (`found`): each key's own words for what it accepts and
    /// how to fix it. (A number of the wrong size is refused by the option's
    /// own check, which says what range it breaks.)
    pub fn refused(key: Key, found: &str) -> ConfigError {
        let (expected, fix) = match key {
            Key::Llm => (
                "a provider (an object with a `complete` method) or a callback `(messages) => Promise<string>`",
                "Fix: pass your LLM provider with `model`, or an async function that returns the summary text.".into(),
            ),
            Key::Store => (
                "an object with a `put(identity, entry)` method",
                "Fix: pass your memory store, or omit `store` to fold without writing back.".into(),
            ),
            Key::SystemPrompt => ("a string", "Fix: pass the instruction text, or omit it for the default.".into()),
            Key::StrategyId => ("a string", format!("Fix: pass a name, or omit it for '{DEFAULT_STRATEGY_ID}'.")),
            Key::SummaryTier => (
                "'hot', 'warm' or 'cold'",
                format!("Fix: pick one of the three, or omit it for '{}'.", Tier::DEFAULT.as_str()),
            ),
            Key::Claims => (
                "a boolean",
                "Fix: pass true to claim each span through the store before paying for it, or omit it.".into(),
            ),
            Key::OnEvent => ("a function", "Fix: pass `(type, payload) => void`, or omit it.".into()),
            Key::Now => ("a function", "Fix: pass `() => unixMs`, or omit it for Date.now.".into()),
            Key::CountTokens => (
                "a function",
                "Fix: pass your pipeline's TokenCounter, `(text) => number`, or omit it for \
Math.ceil(text.length / 4)."
                    .into(),
            ),
            Key::KeepDetails => (
                "true, false or an object like { maxDetails, maxChars }",
                "Fix: pass true to list the details a summary dropped after its text, or omit it.".into(),
            ),
            Key::Model => return ConfigError::model_required(found),
            Key::MaxSummaries => ("a positive integer", "Fix: pass a number, or omit it for no bound.".into()),
            Key::ClaimLeaseMs => ("a whole number of ms", "Fix: pass a number, or omit it for the default.".into()),
            Key::TriggerMinEntries
            | Key::PreserveRecent
            | Key::MinFoldEntries
            | Key::TtlMs
            | Key::TimeoutMs
            | Key::TriggerMinChars
            | Key::TriggerMinTokens
            | Key::PreserveRecentTokens
            | Key::MinFoldTokens => return ConfigError::not_a_number(SUMMARIZE_CALL, key.name(), found),
        };
        ConfigError::invalid(SUMMARIZE_CALL, ErrorClass::TypeError, key.name(), expected, found, &fix)
    }

    /// A count or duration option of `call` that holds no number at all.
    pub fn not_a_number(call: &str, key: &str, found: &str) -> ConfigError {
        let fix = "Fix: pass a number, or omit the option.";
        ConfigError::invalid(call, ErrorClass::TypeError, key, "a non-negative integer", found, fix)
    }

    /// `extractive(options)` called with options that are no object.
    pub fn extractive_options(found: &str) -> ConfigError {
        let fix = "Fix: call extractive() or extractive({ maxChars: 800 }).";
        ConfigError::invalid(
            EXTRACTIVE_CALL,
            ErrorClass::TypeError,
            "options",
            "an object like { maxChars }",
            found,
            fix,
        )
    }

    /// The offline summarizer called with something other than messages.
    pub fn extractive_messages(found: &str) -> ConfigError {
        let fix = "Fix: pass it as the stage's `llm`, or call it with the messages array.";
        let expected = "an array of { role, content }";
        ConfigError::invalid("extractive summarizer", ErrorClass::TypeError, "messages", expected, found, fix)
    }

    /// `summarize(config)` called with no config object.
    pub fn not_an_object(found: &str) -> ConfigError {
        let fix = "Fix: call summarize({ llm, ... }).";
        ConfigError::invalid(SUMMARIZE_CALL, ErrorClass::TypeError, "config", "an object", found, fix)
    }

    /// A string option holding a lone surrogate, which the stage would have
    /// to change (to U+FFFD) before sending or emitting it.
    pub fn not_well_formed(key: Key, found: &str) -> ConfigError {
        ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            key.name(),
            "well-formed text",
            &format!("{found}, which holds a lone surrogate"),
            "Fix: pass the text without the unpaired surrogate, or omit it.",
        )
    }

    pub fn model_required(received: &str) -> ConfigError {
        ConfigError {
            class: ErrorClass::Error,
            message: format!(
                "summarize(config): `model` is required when `llm` is a provider (received {received}). \
There is no default on purpose: falling back to the agent's model would, with a same-vendor provider, \
quietly bill your main model for compression, and with another vendor's provider send a model id that \
provider has never heard of. Fix: name a cheap summarizer model, e.g. summarize({{ llm, model: 'your-small-model' }})."
            ),
        }
    }

    /// `claims: true` with a store whose `putIfVersion` is there but is no
    /// function: every turn's claim would fail, so no fold would be paid.
    pub fn put_if_version_not_a_function(received: &str) -> ConfigError {
        ConfigError {
            class: ErrorClass::TypeError,
            message: format!(
                "summarize(config): `store.putIfVersion` must be a function when `claims` is true (received \
{received}), or absent for a store that cannot take claims. Fix: pass the store's own putIfVersion, or omit `claims`."
            ),
        }
    }

    pub fn model_with_callback(received: &str) -> ConfigError {
        ConfigError {
            class: ErrorClass::Error,
            message: format!(
                "summarize(config): `model` was given ({received}) but `llm` is a callback, so nothing would \
read it: the callback composes its own request and names its own model there. Fix: remove `model`, or \
pass a provider object with a `complete` method as `llm`."
            ),
        }
    }
}

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
}

/// The token options, checked: `Some` when the stage counts tokens. Each
/// count is a non-negative integer; `preserveRecentTokens` replaces
/// `preserveRecent`, so the two are refused together. `minFoldTokens`
/// defaults to `preserveRecentTokens` (0 without it), as agentfootprint's
/// own `defineMemory` never folds fewer entries than its tail keeps: a
/// window that holds a summary and a tail otherwise sheds one turn from the
/// tail each turn, and pays for a span of that one turn, which a summary and
/// its label cannot make smaller (README, "Economy").
pub fn token_options(
    counter_given: bool,
    trigger_min: Option<f64>,
    preserve_recent: Option<f64>,
    preserve_recent_entries: Option<f64>,
    min_fold: Option<f64>,
) -> Result<Option<TokenOptions>, ConfigError> {
    let tokens = |key: Key, value: Option<f64>, omit_hint: &str| {
        value.map(|n| whole_number(SUMMARIZE_CALL, key.name(), n, 0.0, MAX_SAFE_INTEGER, omit_hint)).transpose()
    };
    let trigger_min = tokens(Key::TriggerMinTokens, trigger_min, "omit it to trigger on entries only")?;
    let preserve_recent =
        tokens(Key::PreserveRecentTokens, preserve_recent, "omit it to keep `preserveRecent` entries")?;
    let min_fold_given =
        tokens(Key::MinFoldTokens, min_fold, "omit it for the default (`preserveRecentTokens`, or 0 without it)")?;
    if let (Some(tokens), Some(entries)) = (preserve_recent, preserve_recent_entries) {
        return Err(ConfigError {
            class: ErrorClass::Error,
            message: format!(
                "{SUMMARIZE_CALL}: `preserveRecentTokens` ({}) and `preserveRecent` ({}) were both given, but \
`preserveRecentTokens` replaces `preserveRecent`: the verbatim tail is counted in tokens or in entries, not both. \
Fix: remove one of them.",
                js_number_to_string(tokens),
                js_number_to_string(entries)
            ),
        });
    }
    let counts = counter_given || trigger_min.is_some() || preserve_recent.is_some() || min_fold_given.is_some();
    let min_fold = min_fold_given.or(preserve_recent).unwrap_or(0.0);
    Ok(counts.then_some(TokenOptions { trigger_min, preserve_recent, min_fold }))
}

const MAX_DETAILS: &str = "maxDetails";
const MAX_CHARS: &str = "maxChars";

/// `keepDetails: { maxDetails, maxChars }`'s keys: the only ones it takes.
pub const KEEP_DETAILS_KEYS: [&str; 2] = [MAX_DETAILS, MAX_CHARS];

/// The one key `extractive(options)` takes: its budget in UTF-16 units.
pub const EXTRACTIVE_MAX_CHARS: &str = MAX_CHARS;

/// How a refusal names a field of the object form: `keepDetails.maxChars`.
pub fn keep_details_field(key: &str) -> String {
    format!("{}.{key}", Key::KeepDetails.name())
}

/// `keepDetails`'s bounds from the object form, each field as `read` finds
/// it under its key (absent ones take the defaults); each a non-negative
/// integer.
pub fn keep_details_option(read: impl Fn(&str) -> Result<Option<f64>, ConfigError>) -> Result<PinBounds, ConfigError> {
    let bound = |key: &str, default: usize| {
        read(key)?.map_or(Ok(default), |n| count_option(SUMMARIZE_CALL, &keep_details_field(key), n, default))
    };
    Ok(PinBounds {
        max_details: bound(MAX_DETAILS, PinBounds::DEFAULT.max_details)?,
        max_chars: bound(MAX_CHARS, PinBounds::DEFAULT.max_chars)?,
    })
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

impl ConfigError {
    /// An option the stage does not know, which would otherwise be dropped silently.
    pub fn unknown_key(key: &str, received: &str) -> ConfigError {
        let fix = match nearest_known_key(key) {
            Some(known) => format!("did you mean `{known}`?"),
            None => format!("the options are {}.", KNOWN_KEYS.map(|k| format!("`{k}`")).join(", ")),
        };
        ConfigError {
            class: ErrorClass::TypeError,
            message: format!(
                "{SUMMARIZE_CALL}: `{key}` is not an option (received {received}); it would be ignored. Fix: {fix}"
            ),
        }
    }
}

/// `maxSummaries`: at least 1 (one summary plus the verbatim tail).
fn max_summaries_option(value: f64) -> Result<usize, ConfigError> {
    if value >= 1.0 {
        whole_number(SUMMARIZE_CALL, "maxSummaries", value, 1.0, MAX_SAFE_INTEGER, "omit it for no bound")
            .map(|n| n as usize)
    } else {
        Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::RangeError,
            "maxSummaries",
            "a positive integer",
            &format!("a number ({})", js_number_to_string(value)),
            "Fix: pass 1 to keep one rolling summary, or omit it for no bound.",
        ))
    }
}

/// `triggerMinChars`: a non-negative integer of UTF-16 code units.
fn trigger_chars_option(value: f64) -> Result<usize, ConfigError> {
    whole_number(SUMMARIZE_CALL, "triggerMinChars", value, 0.0, MAX_SAFE_INTEGER, "omit it to trigger on entries only")
        .map(|n| n as usize)
}

/// A claim's version: the ms it was made at, times 1,024, plus a random
/// 0..1,024 (`random` in [0, 1)), so two processes claiming one span in the
/// same millisecond still write different versions (but for one chance in
/// 1,024), and a give-up, which expects its own version, does not expire
/// another process's claim. The ms are clamped so the product stays a safe
/// integer.
pub fn claim_version(now_ms: f64, random: f64) -> f64 {
    now_ms.floor().clamp(1.0, 8.0e12) * 1024.0 + (random * 1024.0).floor().clamp(0.0, 1023.0)
}

/// A claim's lease when `claimLeaseMs` is not given: a minute, or three
/// times `timeoutMs` when that is longer (the claim's write, the call and the
/// summary's write each get `timeoutMs`, and the lease must outlast them).
pub const DEFAULT_CLAIM_LEASE_MS: f64 = 60_000.0;

/// How old another run's call over the same span may be for a run to wait
/// on it, without `timeoutMs`: a run never joins a flight older than this,
/// and a run waiting on one stops waiting once the flight is this old. A
/// minute covers a slow summarizer; past it, a call that never settles
/// costs the visits that joined it a verbatim turn, never later ones.
pub const JOIN_WINDOW_MS: f64 = 60_000.0;

impl StageConfig {
    /// The join window of this stage's flights: [`JOIN_WINDOW_MS`] without
    /// `timeoutMs`, and none with it, since the leader's own deadlines (the
    /// claim's, the call's) bound every wait then.
    pub fn join_window_ms(&self) -> Option<f64> {
        self.timeout_ms.is_none().then_some(JOIN_WINDOW_MS)
    }
}

/// `claims` and `claimLeaseMs` together: the lease when claims are on.
/// `claims` was checked to be a boolean or absent, `lease` to be a number.
pub fn claim_lease_option(
    claims: bool,
    lease: Option<f64>,
    timeout_ms: Option<f64>,
    has_store: bool,
) -> Result<Option<f64>, ConfigError> {
    let shortest = timeout_ms.map_or(1.0, |timeout| (3.0 * timeout).max(1.0));
    if !claims {
        return match lease {
            None => Ok(None),
            Some(lease) => Err(ConfigError {
                class: ErrorClass::Error,
                message: format!(
                    "{SUMMARIZE_CALL}: `claimLeaseMs` was given (a number ({})) but `claims` is not true, so nothing \
would read it. Fix: add `claims: true` to claim spans through the store, or remove `claimLeaseMs`.",
                    js_number_to_string(lease)
                ),
            }),
        };
    }
    if !has_store {
        return Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            "store",
            "a shared store when `claims` is true (claims are written to it with `putIfVersion`)",
            "undefined",
            "Fix: pass the store your processes share, or remove `claims`.",
        ));
    }
    let Some(lease) = lease else {
        return Ok(Some(DEFAULT_CLAIM_LEASE_MS.max(shortest)));
    };
    if !(lease.is_finite() && lease.fract() == 0.0 && lease >= shortest && lease <= MAX_SAFE_INTEGER) {
        let minimum = js_number_to_string(shortest);
        // Above 1, the minimum comes from `timeoutMs`.
        let why = if shortest > 1.0 {
            format!(
                "a whole number of ms, at least {minimum}: what the claim, the call and the write may take \
together (3 × timeoutMs); a lease that ends first lets another process pay for the same span"
            )
        } else {
            "a whole number of ms, at least 1".to_owned()
        };
        // Long enough, but a fraction or past JS's safe integers.
        let (why, fix) = if lease >= shortest {
            let max = js_number_to_string(MAX_SAFE_INTEGER);
            (format!("{why}, and at most {max}"), format!("Fix: pass a whole number of ms from {minimum} to {max}"))
        } else {
            (why, "Fix: pass a longer lease".to_owned())
        };
        return Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::RangeError,
            "claimLeaseMs",
            &why,
            &format!("a number ({})", js_number_to_string(lease)),
            &format!("{fix}, or omit it for the default."),
        ));
    }
    Ok(Some(lease))
}

const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
/// The longest delay `setTimeout` honours; past it, JS fires at once.
pub const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

/// A count option (`triggerMinEntries`, `preserveRecent`, `minFoldEntries`,
/// `maxChars`): a non-negative integer no larger than JS's safe integers.
pub fn count_option(call: &str, key: &str, value: f64, default: usize) -> Result<usize, ConfigError> {
    whole_number(call, key, value, 0.0, MAX_SAFE_INTEGER, format_args!("omit it for the default ({default})"))
        .map(|n| n as usize)
}

/// `ttlMs`: a non-negative integer of milliseconds.
fn ttl_option(key: &str, value: f64) -> Result<f64, ConfigError> {
    whole_number(SUMMARIZE_CALL, key, value, 0.0, MAX_SAFE_INTEGER, "omit it for no ttl")
}

/// `timeoutMs`: a positive integer of milliseconds that `setTimeout` can
/// wait. 0 would fail every call, and reads to many as "no deadline",
/// which is spelled by leaving it out.
fn timeout_option(key: &str, value: f64) -> Result<f64, ConfigError> {
    whole_number(SUMMARIZE_CALL, key, value, 1.0, MAX_TIMEOUT_MS, "omit it for no deadline")
}

/// An integer from `min` (0 or 1) to `max`. `omit_hint` is formatted only
/// for a refusal: a stage is built per request.
fn whole_number(
    call: &str,
    key: &str,
    value: f64,
    min: f64,
    max: f64,
    omit_hint: impl fmt::Display,
) -> Result<f64, ConfigError> {
    if value.is_finite() && value >= min && value.fract() == 0.0 && value <= max {
        Ok(value)
    } else {
        let kind = if min > 0.0 { "a positive integer" } else { "a non-negative integer" };
        Err(ConfigError::invalid(
            call,
            ErrorClass::RangeError,
            key,
            &format!("{kind} no larger than {}", js_number_to_string(max)),
            &format!("a number ({})", js_number_to_string(value)),
            &format!("Fix: pass a whole number >= {}, or {omit_hint}.", js_number_to_string(min)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_has_its_own_name() {
        for (index, key) in Key::ALL.iter().enumerate() {
            assert_eq!(*key as usize, index, "Key::ALL is in declaration order");
            assert_eq!(KNOWN_KEYS[index], key.name());
        }
        let mut names = KNOWN_KEYS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Key::ALL.len());
    }

    #[test]
    fn checked_keep_details_bounds_are_written_under_the_keys_the_object_form_reads() {
        let written = serde_json::to_value(PinBounds::DEFAULT).expect("serializes");
        let mut keys: Vec<&str> = written.as_object().expect("an object").keys().map(String::as_str).collect();
        let mut expected = KEEP_DETAILS_KEYS.to_vec();
        keys.sort_unstable();
        expected.sort_unstable();
        assert_eq!(keys, expected);
        let read = keep_details_option(|key| Ok(written[key].as_f64())).expect("reads back");
        assert_eq!(read, PinBounds::DEFAULT);
    }

    #[test]
    fn claim_versions_differ_within_a_millisecond_and_stay_safe_integers() {
        assert_eq!(claim_version(5000.7, 0.0), 5_120_000.0);
        assert_eq!(claim_version(5000.0, 0.9999), 5_121_023.0);
        assert_ne!(claim_version(5000.0, 0.1), claim_version(5000.0, 0.2));
        assert_eq!(claim_version(-3.0, 0.5), 1024.0 + 512.0, "a clock before 1970 still gives a version above 0");
        assert!(claim_version(1e300, 0.99) <= MAX_SAFE_INTEGER);
    }

    #[test]
    fn claim_leases_outlast_the_call_and_the_write() {
        assert_eq!(claim_lease_option(false, None, None, false), Ok(None));
        assert_eq!(claim_lease_option(true, None, None, true), Ok(Some(DEFAULT_CLAIM_LEASE_MS)));
        assert_eq!(claim_lease_option(true, None, Some(45_000.0), true), Ok(Some(135_000.0)));
        assert_eq!(
            claim_lease_option(true, Some(135_000.0), Some(45_000.0), true),
            Ok(Some(135_000.0)),
            "the default is accepted"
        );
        assert_eq!(claim_lease_option(true, Some(6_000.0), Some(2_000.0), true), Ok(Some(6_000.0)));
        let err = claim_lease_option(true, Some(5_000.0), Some(2_000.0), true).unwrap_err();
        assert_eq!(err.class, ErrorClass::RangeError);
        assert!(
            err.message.contains("`claimLeaseMs`")
                && err.message.contains("(5000)")
                && err.message.contains("at least 6000")
        );
        for (lease, timeout) in [(0.0, None), (0.0, Some(0.0)), (f64::NAN, None)] {
            let err = claim_lease_option(true, Some(lease), timeout, true).unwrap_err();
            assert!(err.message.contains("a whole number of ms, at least 1;"), "{}", err.message);
            assert!(err.message.ends_with("Fix: pass a longer lease, or omit it for the default."), "{}", err.message);
        }
        for lease in [1.5, 9_007_199_254_740_992.0, 1e300] {
            let err = claim_lease_option(true, Some(lease), None, true).unwrap_err();
            assert!(
                err.message.contains("a whole number of ms, at least 1, and at most 9007199254740991;"),
                "{}",
                err.message
            );
            assert!(
                err.message.ends_with(
                    "Fix: pass a whole number of ms from 1 to 9007199254740991, or omit it for the default."
                ),
                "{}",
                err.message
            );
        }
        let err = claim_lease_option(true, None, None, false).unwrap_err();
        assert!(err.message.contains("`store`") && err.message.contains("putIfVersion"), "{}", err.message);
        let err = claim_lease_option(false, Some(1_000.0), None, true).unwrap_err();
        assert!(err.message.contains("nothing") && err.message.contains("claims: true"), "{}", err.message);
    }

    #[test]
    fn counts_accept_whole_numbers_only() {
        assert_eq!(count_option(SUMMARIZE_CALL, "preserveRecent", 0.0, 5), Ok(0));
        assert_eq!(count_option(SUMMARIZE_CALL, "preserveRecent", 12.0, 5), Ok(12));
        for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY, 1e300] {
            let err = count_option(SUMMARIZE_CALL, "preserveRecent", bad, 5).unwrap_err();
            assert_eq!(err.class, ErrorClass::RangeError);
            assert!(err.message.starts_with("summarize(config): `preserveRecent`"), "{}", err.message);
            assert!(err.message.contains("default (5)"), "{}", err.message);
        }
        let err = count_option(EXTRACTIVE_CALL, "maxChars", -2.0, 1).unwrap_err();
        assert!(
            err.message.starts_with("extractive(options): `maxChars`")
                && err.message.contains("received a number (-2)")
        );
    }

    #[test]
    fn timeouts_stay_within_what_set_timeout_can_wait() {
        assert_eq!(timeout_option("timeoutMs", MAX_TIMEOUT_MS), Ok(MAX_TIMEOUT_MS));
        assert!(timeout_option("timeoutMs", MAX_TIMEOUT_MS + 1.0)
            .unwrap_err()
            .message
            .contains("no larger than 2147483647"));
        assert_eq!(ttl_option("ttlMs", 1e15), Ok(1e15), "a ttl is not a timer");
        let zero = timeout_option("timeoutMs", 0.0).unwrap_err().message;
        assert!(zero.contains("received a number (0)") && zero.contains("or omit it for no deadline"), "{zero}");
        assert_eq!(timeout_option("timeoutMs", 1.0), Ok(1.0));
    }

    #[test]
    fn parity_messages_carry_their_stable_phrases() {
        let m = ConfigError::model_required("undefined").message;
        assert!(m.contains("`model` is required"));
        assert!(m.contains("main model") && m.contains("never heard of") && m.contains("Fix:"));
        assert!(ConfigError::model_with_callback("''").message.contains("nothing would read it"));
    }

    #[test]
    fn unknown_keys_name_the_nearest_known_one() {
        assert_eq!(nearest_known_key("preserveRecnet"), Some("preserveRecent"));
        assert_eq!(nearest_known_key("maxsummaries"), Some("maxSummaries"));
        assert_eq!(nearest_known_key("timeout"), Some("timeoutMs"));
        assert_eq!(nearest_known_key("PRESERVERECÉNT"), Some("preserveRecent"), "case aside, by chars");
        assert_eq!(nearest_known_key("completelyDifferent"), None);
        let error = ConfigError::unknown_key("preserveRecnet", "a number (4)");
        assert_eq!(error.class, ErrorClass::TypeError);
        assert!(
            error.message.contains("`preserveRecnet` is not an option (received a number (4))"),
            "{}",
            error.message
        );
        assert!(error.message.ends_with("did you mean `preserveRecent`?"), "{}", error.message);
        assert!(ConfigError::unknown_key("zzz", "1").message.contains("`maxSummaries`"));
    }

    #[test]
    fn token_options_are_whole_numbers_and_replace_preserve_recent() {
        assert_eq!(token_options(false, None, None, Some(5.0), None), Ok(None), "no token option: no counting");
        assert_eq!(token_options(true, None, None, None, None), Ok(Some(TokenOptions::default())));
        assert_eq!(
            token_options(false, Some(4000.0), Some(0.0), None, None),
            Ok(Some(TokenOptions { trigger_min: Some(4000.0), preserve_recent: Some(0.0), min_fold: 0.0 }))
        );
        let fraction = token_options(false, Some(1.5), None, None, None).unwrap_err();
        assert_eq!(fraction.class, ErrorClass::RangeError);
        assert!(fraction.message.contains("`triggerMinTokens` must be a non-negative integer"), "{}", fraction.message);
        let both = token_options(false, None, Some(400.0), Some(5.0), None).unwrap_err();
        assert!(both.message.contains("`preserveRecentTokens` (400) and `preserveRecent` (5)"), "{}", both.message);
        assert!(both.message.contains("Fix: remove one of them."));
    }

    #[test]
    fn min_fold_tokens_defaults_to_the_verbatim_tail_and_turns_counting_on() {
        let options = |min_fold, preserve| token_options(false, None, preserve, None, min_fold).unwrap();
        assert_eq!(options(None, Some(500.0)).map(|t| t.min_fold), Some(500.0), "the tail's tokens");
        assert_eq!(options(Some(120.0), Some(500.0)).map(|t| t.min_fold), Some(120.0), "as given");
        assert_eq!(options(Some(0.0), Some(500.0)).map(|t| t.min_fold), Some(0.0), "0 turns the floor off");
        assert_eq!(options(Some(300.0), None), Some(TokenOptions { min_fold: 300.0, ..TokenOptions::default() }));
        let counter_only = token_options(true, Some(2000.0), None, Some(5.0), None).unwrap();
        assert_eq!(counter_only.map(|t| t.min_fold), Some(0.0), "a tail in entries: no floor in tokens");
        for bad in [-1.0, 2.5, f64::INFINITY] {
            let error = token_options(false, None, None, None, Some(bad)).unwrap_err();
            assert_eq!(error.class, ErrorClass::RangeError);
            assert!(error.message.starts_with("summarize(config): `minFoldTokens` must be a non-negative integer"));
            assert!(error.message.contains("omit it for the default (`preserveRecentTokens`, or 0 without it)"));
        }
    }

    #[test]
    fn max_summaries_is_a_positive_integer() {
        assert_eq!(max_summaries_option(1.0), Ok(1));
        for bad in [0.0, -1.0, 1.5, f64::NAN, 9_007_199_254_740_992.0] {
            let error = max_summaries_option(bad).unwrap_err();
            assert!(
                error.message.starts_with("summarize(config): `maxSummaries` must be a positive integer"),
                "{}",
                error.message
            );
            assert!(!error.message.contains(">= 0"), "0 is refused, so no fix offers it: {}", error.message);
        }
        assert_eq!(trigger_chars_option(0.0), Ok(0));
    }

    #[test]
    fn tiers_round_trip() {
        for name in ["hot", "warm", "cold"] {
            assert_eq!(Tier::parse(name).map(Tier::as_str), Some(name));
        }
        assert_eq!(Tier::parse("frozen"), None);
    }
}
