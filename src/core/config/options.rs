//! Each option's check: the range it takes, its default, and how it is
//! refused.

use super::*;

use std::fmt;

use crate::core::details::PinBounds;
use crate::core::js_number::js_number_to_string;
use crate::core::span_bound::{BoundUnit, SpanBound};

/// The token options, checked: `Some` when the stage counts tokens. Each
/// count is a non-negative integer; `preserveRecentTokens` replaces
/// `preserveRecent`, so the two are refused together. `minFoldTokens`
/// defaults to `preserveRecentTokens` (0 without it), as agentfootprint's
/// own `defineMemory` never folds fewer entries than its tail keeps: a
/// window that holds a summary and a tail otherwise sheds one turn from the
/// tail each turn, and pays for a span of that one turn, which a summary and
/// its label cannot make smaller (README, "Economy"). Each number is as
/// `number` finds it under its key.
pub fn token_options(
    counter_given: bool,
    number: impl Fn(Key) -> Result<Option<f64>, ConfigError>,
) -> Result<Option<TokenOptions>, ConfigError> {
    let tokens = |key: Key, omit_hint: &str| {
        number(key)?.map(|n| whole_number(SUMMARIZE_CALL, key.name(), n, 0.0, MAX_SAFE_INTEGER, omit_hint)).transpose()
    };
    let trigger_min = tokens(Key::TriggerMinTokens, "omit it to trigger on entries only")?;
    let preserve_recent = tokens(Key::PreserveRecentTokens, "omit it to keep `preserveRecent` entries")?;
    let min_fold_given =
        tokens(Key::MinFoldTokens, "omit it for the default (`preserveRecentTokens`, or 0 without it)")?;
    if let (Some(tokens), Some(entries)) = (preserve_recent, number(Key::PreserveRecent)?) {
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

/// `maxSpanChars` or `maxSpanTokens` (never both), as given: a positive
/// integer, and in tokens only with the `countTokens` the bound is counted
/// by. A bound in chars must leave the span `SpanBound::min_room` after
/// the instruction (`call_overhead_chars`); one in tokens is checked at
/// the visit, where the counter is called.
pub fn span_bound_option(
    config: &StageConfig,
    chars: Option<f64>,
    tokens: Option<f64>,
    counter_given: bool,
) -> Result<Option<SpanBound>, ConfigError> {
    let bound = |key: Key, value: f64, unit: BoundUnit| {
        whole_number(SUMMARIZE_CALL, key.name(), value, 1.0, MAX_SAFE_INTEGER, "omit it to send every span whole")
            .map(|max| SpanBound { unit, max })
    };
    let bound = match (chars, tokens) {
        (None, None) => return Ok(None),
        (Some(chars), Some(tokens)) => {
            return Err(ConfigError {
                class: ErrorClass::Error,
                message: format!(
                    "{SUMMARIZE_CALL}: `maxSpanChars` ({}) and `maxSpanTokens` ({}) were both given, but a call is \
bounded in one unit. Fix: remove one of them.",
                    js_number_to_string(chars),
                    js_number_to_string(tokens)
                ),
            })
        }
        (Some(chars), None) => bound(Key::MaxSpanChars, chars, BoundUnit::Chars)?,
        (None, Some(tokens)) => bound(Key::MaxSpanTokens, tokens, BoundUnit::Tokens)?,
    };
    if bound.unit == BoundUnit::Tokens && !counter_given {
        return Err(ConfigError {
            class: ErrorClass::Error,
            message: format!(
                "{SUMMARIZE_CALL}: `maxSpanTokens` ({}) was given without `countTokens`, so nothing would count \
the tokens it bounds. Fix: pass the summarizer model's token counter as `countTokens`, or bound the call in chars \
with `maxSpanChars`.",
                js_number_to_string(bound.max)
            ),
        });
    }
    let overhead = config.call_overhead_chars() as f64;
    if bound.unit == BoundUnit::Chars && bound.max < overhead + bound.min_room() {
        let least = js_number_to_string(overhead + bound.min_room());
        return Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::RangeError,
            bound.key(),
            &format!(
                "at least {least}: the instruction is {} chars with the transcript's markers, and a fold needs {} \
more for the span",
                js_number_to_string(overhead),
                js_number_to_string(bound.min_room())
            ),
            &format!("a number ({})", js_number_to_string(bound.max)),
            &format!("Fix: pass at least {least}, or a shorter systemPrompt."),
        ));
    }
    Ok(Some(bound))
}

pub(super) const MAX_DETAILS: &str = "maxDetails";
pub(super) const MAX_CHARS: &str = "maxChars";

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

/// `maxSummaries`: at least 1 (one summary plus the verbatim tail).
pub(super) fn max_summaries_option(value: f64) -> Result<usize, ConfigError> {
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
pub(super) fn trigger_chars_option(value: f64) -> Result<usize, ConfigError> {
    whole_number(SUMMARIZE_CALL, "triggerMinChars", value, 0.0, MAX_SAFE_INTEGER, "omit it to trigger on entries only")
        .map(|n| n as usize)
}

/// A claim's lease when `claimLeaseMs` is not given: a minute, or three
/// times `timeoutMs` when that is longer (the claim's write, the call and the
/// summary's write each get `timeoutMs`, and the lease must outlast them).
pub const DEFAULT_CLAIM_LEASE_MS: f64 = 60_000.0;

/// `claims` and `claimLeaseMs` together: the lease when claims are on,
/// which must outlast three of each call's deadline ([`call_deadline_ms`]).
/// `claims` was checked to be a boolean or absent, `lease` to be a number.
pub fn claim_lease_option(
    claims: bool,
    lease: Option<f64>,
    timeout_ms: Option<f64>,
    background: bool,
    has_store: bool,
) -> Result<Option<f64>, ConfigError> {
    let deadline = call_deadline_ms(timeout_ms, background);
    let shortest = deadline.map_or(1.0, |deadline| (3.0 * deadline).max(1.0));
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
        // Above 1, the minimum comes from each call's deadline.
        let why = if shortest > 1.0 {
            let deadline = if timeout_ms.is_some() {
                "timeoutMs".to_owned()
            } else {
                format!(
                    "{} ms, a background call's deadline without timeoutMs",
                    js_number_to_string(BACKGROUND_TIMEOUT_MS)
                )
            };
            format!(
                "a whole number of ms, at least {minimum}: what the claim, the call and the write may take \
together (3 × {deadline}); a lease that ends first lets another process pay for the same span"
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

pub(super) const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
/// The longest delay `setTimeout` honours; past it, JS fires at once.
pub const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

/// A count option (`triggerMinEntries`, `preserveRecent`, `minFoldEntries`,
/// `maxChars`): a non-negative integer no larger than JS's safe integers.
pub fn count_option(call: &str, key: &str, value: f64, default: usize) -> Result<usize, ConfigError> {
    whole_number(call, key, value, 0.0, MAX_SAFE_INTEGER, format_args!("omit it for the default ({default})"))
        .map(|n| n as usize)
}

/// `ttlMs`: a non-negative integer of milliseconds.
pub(super) fn ttl_option(key: &str, value: f64) -> Result<f64, ConfigError> {
    whole_number(SUMMARIZE_CALL, key, value, 0.0, MAX_SAFE_INTEGER, "omit it for no ttl")
}

/// `timeoutMs`: a positive integer of milliseconds that `setTimeout` can
/// wait. 0 would fail every call, and reads to many as "no deadline",
/// which is spelled by leaving it out.
pub(super) fn timeout_option(key: &str, value: f64) -> Result<f64, ConfigError> {
    whole_number(SUMMARIZE_CALL, key, value, 1.0, MAX_TIMEOUT_MS, "omit it for no deadline")
}

/// An integer from `min` (0 or 1) to `max`. `omit_hint` is formatted only
/// for a refusal: a stage is built per request.
pub(super) fn whole_number(
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
