//! The build-time refusals (SPEC §3): each names the key, the value received
//! and the fix.

use super::*;

use crate::core::format::DEFAULT_STRATEGY_ID;

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
            Key::Background => (
                "a boolean",
                "Fix: pass true to fold in the background (with a store), or omit it to fold within the turn.".into(),
            ),
            Key::WaitUntil => (
                "a function",
                "Fix: pass your platform's `(promise) => void` (Vercel's or Cloudflare's `waitUntil`), or omit it."
                    .into(),
            ),
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
            Key::MaxSpanChars | Key::MaxSpanTokens => {
                ("a positive integer", "Fix: pass a number, or omit it to send every span whole.".into())
            }
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

    /// `background: true` without a store: the summary would reach no later turn.
    pub fn background_without_store() -> ConfigError {
        ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            "store",
            "an object with a `put(identity, entry)` method when `background` is true (a background fold's summary \
reaches later turns only through the store)",
            "undefined",
            "Fix: pass your memory store, or remove `background` to fold within the turn.",
        )
    }

    /// `waitUntil` without `background: true`: nothing would call it.
    pub fn wait_until_without_background() -> ConfigError {
        ConfigError {
            class: ErrorClass::Error,
            message: format!(
                "{SUMMARIZE_CALL}: `waitUntil` was given (a function) but `background` is not true, so nothing would \
call it: every fold ends within its turn. Fix: add `background: true` to fold in the background, or remove `waitUntil`."
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
