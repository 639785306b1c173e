//! The validated stage configuration and the build-time refusal messages.
//! The bindings read the JS config object; the rules and the words live here.

use std::cell::OnceCell;
use std::sync::OnceLock;

use super::format::{label_text, utf16_len, NumberedText, CALLBACK_AUTHOR, LABEL_SEPARATOR};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Hot,
    Warm,
    Cold,
}

impl Tier {
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
    pub ttl_ms: Option<f64>,
    pub tier: Tier,
    pub timeout_ms: Option<f64>,
    /// What a summary's content starts with, before the summarizer's text:
    /// the label naming this shape's author, and its separator. From the
    /// first and last turns and the number of entries folded. Written on
    /// first use: most visits never consider a fold.
    header: OnceCell<NumberedText>,
}

impl StageConfig {
    /// The documented defaults, for the given shape.
    pub fn new(shape: Shape) -> StageConfig {
        StageConfig {
            shape,
            trigger_min_entries: 20,
            preserve_recent: 5,
            min_fold_entries: 2,
            ttl_ms: None,
            tier: Tier::Cold,
            timeout_ms: None,
            header: OnceCell::new(),
        }
    }

    pub fn header(&self) -> &NumberedText {
        self.header.get_or_init(|| {
            let author = match &self.shape {
                Shape::Provider { model } => model.as_str(),
                Shape::Callback => CALLBACK_AUTHOR,
            };
            label_text(author).followed_by(LABEL_SEPARATOR)
        })
    }

    /// `utf16_len` of `header().render(numbers)`, without writing the label:
    /// every considered fold measures its label, few write one.
    pub fn label_chars(&self, numbers: &[f64]) -> usize {
        static WITHOUT_AUTHOR: OnceLock<NumberedText> = OnceLock::new();
        let template = WITHOUT_AUTHOR.get_or_init(|| label_text("").followed_by(LABEL_SEPARATOR));
        template.utf16_len(numbers) + utf16_len(self.model().unwrap_or(CALLBACK_AUTHOR))
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

const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
/// The longest delay `setTimeout` honours; past it, JS fires at once.
pub const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

/// A count option (`triggerMinEntries`, `preserveRecent`, `minFoldEntries`,
/// `maxChars`): a non-negative integer no larger than JS's safe integers.
pub fn count_option(call: &str, key: &str, value: f64, default: usize) -> Result<usize, ConfigError> {
    whole_number(call, key, value, MAX_SAFE_INTEGER, &format!("omit it for the default ({default})"))
        .map(|n| n as usize)
}

/// `ttlMs`: a non-negative integer of milliseconds.
pub fn ttl_option(key: &str, value: f64) -> Result<f64, ConfigError> {
    whole_number(SUMMARIZE_CALL, key, value, MAX_SAFE_INTEGER, "omit it for no ttl")
}

/// `timeoutMs`: a non-negative integer of milliseconds that `setTimeout` can wait.
pub fn timeout_option(key: &str, value: f64) -> Result<f64, ConfigError> {
    whole_number(SUMMARIZE_CALL, key, value, MAX_TIMEOUT_MS, "omit it for no deadline")
}

fn whole_number(call: &str, key: &str, value: f64, max: f64, omit_hint: &str) -> Result<f64, ConfigError> {
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= max {
        Ok(value)
    } else {
        Err(ConfigError::invalid(
            call,
            ErrorClass::RangeError,
            key,
            &format!("a non-negative integer no larger than {}", super::js_number::js_number_to_string(max)),
            &format!("a number ({})", super::js_number::js_number_to_string(value)),
            &format!("Fix: pass a whole number >= 0, or {omit_hint}."),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn parity_messages_carry_their_stable_phrases() {
        let m = ConfigError::model_required("undefined").message;
        assert!(m.contains("`model` is required"));
        assert!(m.contains("main model") && m.contains("never heard of") && m.contains("Fix:"));
        assert!(ConfigError::model_with_callback("''").message.contains("nothing would read it"));
    }

    #[test]
    fn tiers_round_trip() {
        for name in ["hot", "warm", "cold"] {
            assert_eq!(Tier::parse(name).map(Tier::as_str), Some(name));
        }
        assert_eq!(Tier::parse("frozen"), None);
    }
}
