//! The validated stage configuration and the build-time refusal messages.
//! The bindings read the JS config object; the rules and the words live here.

use super::details::PinBounds;
use super::format::{
    label_text, rolling_system_prompt, transcript_frame, utf16_len, NumberedText, CALLBACK_AUTHOR, DEFAULT_STRATEGY_ID,
    DEFAULT_SYSTEM_PROMPT, LABEL_SEPARATOR,
};
use super::span_bound::SpanBound;

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
    /// Beyond the original (`background: true`): a visit that would wait
    /// for the summarizer starts the fold and serves recall without it; the
    /// summary is written back when the call ends, for later turns.
    pub background: bool,
    /// Beyond the original (`maxSpanChars`, `maxSpanTokens`): the most one
    /// summarizer call is sent; a span past it folds in parts.
    pub max_span: Option<SpanBound>,
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
            background: false,
            max_span: None,
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

    /// The configured instruction, or the default (the rolling one when
    /// earlier summaries may be folded in).
    pub fn instruction(&self) -> String {
        match (&self.system_prompt, self.max_summaries) {
            (Some(prompt), _) => prompt.clone(),
            (None, Some(_)) => rolling_system_prompt(),
            (None, None) => DEFAULT_SYSTEM_PROMPT.to_owned(),
        }
    }

    /// What a summarizer call is sent besides its messages: the
    /// instruction, and with a provider the transcript's frame (§5).
    pub fn call_overhead(&self) -> Vec<String> {
        let mut pieces = vec![self.instruction()];
        if let Shape::Provider { .. } = self.shape {
            pieces.extend(transcript_frame());
        }
        pieces
    }

    /// [`StageConfig::call_overhead`] in UTF-16 units.
    pub fn call_overhead_chars(&self) -> usize {
        self.call_overhead().iter().map(|piece| utf16_len(piece)).sum()
    }

    /// Whether an option beyond the original shapes what this stage folds
    /// (a token option, `maxSummaries`, `triggerMinChars`, `keepDetails`
    /// or a span bound). Then it also declines a call whose refusal is
    /// foreseeable (`Candidate::predicted_refusal`); without one it calls
    /// wherever the original does.
    pub fn foresees_refusals(&self) -> bool {
        self.tokens.is_some()
            || self.max_summaries.is_some()
            || self.trigger_min_chars.is_some()
            || self.keep_details.is_some()
            || self.max_span.is_some()
    }

    pub fn model(&self) -> Option<&str> {
        match &self.shape {
            Shape::Provider { model } => Some(model),
            Shape::Callback => None,
        }
    }
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

/// How old another run's call over the same span may be for a run to wait
/// on it, without `timeoutMs`: a run never joins a flight older than this,
/// and a run waiting on one stops waiting once the flight is this old. A
/// minute covers a slow summarizer; past it, a call that never settles
/// costs the visits that joined it a verbatim turn, never later ones.
pub const JOIN_WINDOW_MS: f64 = 60_000.0;

/// How long a background fold's calls may take without `timeoutMs`: no turn
/// waits on them, so only this bounds what a call that never answers holds
/// (two minutes: longer than a real model's slowest answer).
pub const BACKGROUND_TIMEOUT_MS: f64 = 120_000.0;

impl StageConfig {
    /// The join window of this stage's flights: [`JOIN_WINDOW_MS`] without
    /// `timeoutMs`, and none with it, since the leader's own deadlines (the
    /// claim's, the call's) bound every wait then.
    pub fn join_window_ms(&self) -> Option<f64> {
        self.timeout_ms.is_none().then_some(JOIN_WINDOW_MS)
    }

    /// The bound on each call into the summarizer and the store ([`call_deadline_ms`]).
    pub fn call_timeout_ms(&self) -> Option<f64> {
        call_deadline_ms(self.timeout_ms, self.background)
    }
}

/// The bound on each call into the summarizer and the store: `timeoutMs`,
/// or with `background` and none, [`BACKGROUND_TIMEOUT_MS`].
pub fn call_deadline_ms(timeout_ms: Option<f64>, background: bool) -> Option<f64> {
    timeout_ms.or(background.then_some(BACKGROUND_TIMEOUT_MS))
}

mod keys;
mod options;
mod read;
mod refusals;

pub use keys::*;
pub use options::*;
pub use read::{read, Found, Methods, Options};
pub use refusals::*;

#[cfg(test)]
mod tests;
