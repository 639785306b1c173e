//! Invalid input: where a visit's input broke the contract, and how its
//! event says so.

use super::*;

/// Where a visit's input was malformed, named the way the user would write it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InvalidSpot {
    /// The entry's index; `None` when the spot is `loaded` or the identity.
    pub index: Option<usize>,
    /// `entry`, `id`, `value`, `value.content`, `source.turn`, `updatedAt`,
    /// `countTokens` (an entry's count), `loaded` or `identity`.
    pub field: String,
    /// What was found there, e.g. `a number (42)`.
    pub found: String,
    /// What is accepted there.
    pub expected: String,
}

/// The field an [`InvalidSpot`] names when the configured `countTokens`
/// gave no token count for an entry's content.
pub const COUNTER_FIELD: &str = "countTokens";

/// What a token count must be.
pub(super) const TOKEN_COUNT_EXPECTED: &str = "a finite, non-negative number of tokens";

impl InvalidSpot {
    /// `loaded` itself is unusable: no array, or one that threw while it
    /// was read or iterated (what `found` describes).
    pub fn loaded(found: String) -> InvalidSpot {
        let expected = "an array of memory entries, or undefined".into();
        InvalidSpot { index: None, field: "loaded".into(), found, expected }
    }

    /// `loaded` holds more (`limit` of `unit` at most) than one visit folds safely.
    pub fn too_large(found: String, unit: &str, limit: usize) -> InvalidSpot {
        let expected = format!("at most {limit} {unit}, which one visit folds safely");
        InvalidSpot { index: None, field: "loaded".into(), found, expected }
    }

    /// Entry `index`'s `field` holds what `found` describes; `expected` is accepted there.
    pub fn entry(index: usize, field: &str, found: String, expected: &str) -> InvalidSpot {
        InvalidSpot { index: Some(index), field: field.into(), found, expected: expected.into() }
    }

    /// Entry `index` is covered only by `summaries` (their ids), which
    /// cover one another (`core::recall::covered_by_another`).
    pub fn covered_in_a_cycle(index: usize, summaries: &[String]) -> InvalidSpot {
        let named = match summaries {
            [first, second, third, _, ..] => format!("{first}, {second}, {third} and {} more", summaries.len() - 3),
            _ => summaries.join(", "),
        };
        InvalidSpot::entry(
            index,
            "entry",
            format!("covered only by summaries that cover one another ({named}), so it and they would leave recall"),
            "an entry that a summary left in recall stands for, directly or through the summaries it took in",
        )
    }

    /// The visit's identity threw while it was read.
    pub fn identity_unreadable(cause: &str) -> InvalidSpot {
        InvalidSpot {
            index: None,
            field: "identity".into(),
            found: threw("reading", cause),
            expected: "an identity whose fields can be read, { tenant?, principal?, conversationId }".into(),
        }
    }

    /// `countTokens` gave what `found` describes instead of a count for entry `index`'s content.
    pub fn uncounted(index: usize, found: String) -> InvalidSpot {
        InvalidSpot::entry(index, COUNTER_FIELD, found, TOKEN_COUNT_EXPECTED)
    }

    /// `countTokens` gave what `found` describes instead of a count for
    /// the instruction or a marker of a call under `maxSpanTokens`.
    pub fn uncounted_instruction(found: String) -> InvalidSpot {
        InvalidSpot { index: None, field: COUNTER_FIELD.into(), found, expected: TOKEN_COUNT_EXPECTED.into() }
    }
}

/// An event whose recall `scope.loaded` refused to take (a frozen scope, a
/// setter that throws): the decision stands (a fold was paid for, and
/// written back when it says so), and this turn's recall is as loaded, so
/// the event drops and adds nothing.
pub fn recall_refused(event: &mut Event, cause: &str) {
    event.reason = format!(
        "{}; but scope.loaded refused the new recall ({cause}), so the turn goes on with recall as loaded",
        event.reason
    );
    event.output_count = event.input_count;
    event.dropped.clear();
    event.added = None;
}

/// The most UTF-16 units of a failure's cause an event or a warning quotes.
/// A provider may put a whole response body in an error's message, and an
/// event is cloned by footprintjs and kept in its history.
pub const MAX_CAUSE_CHARS: usize = 1000;

/// `cause`, cut to [`MAX_CAUSE_CHARS`] at a character boundary, saying how
/// long it was.
pub fn bounded_cause(cause: String) -> String {
    let total = utf16_len(&cause);
    if total <= MAX_CAUSE_CHARS {
        return cause;
    }
    format!("{}\u{2026} ({total} chars in all)", utf16_prefix(&cause, MAX_CAUSE_CHARS))
}

/// How a spot names a value that threw while it was read or iterated
/// (`doing`): `unreadable (reading it threw: cause)`.
pub fn threw(doing: &str, cause: &str) -> String {
    format!("unreadable ({doing} it threw: {cause})")
}

pub fn invalid_input(spot: &InvalidSpot) -> (String, Evidence) {
    let place = match spot.index {
        Some(index) if spot.field == "entry" => format!("loaded[{index}]"),
        Some(index) if spot.field == COUNTER_FIELD => format!("countTokens(loaded[{index}].value.content)"),
        Some(index) => format!("loaded[{index}].{}", spot.field),
        None => spot.field.clone(),
    };
    let fix = match spot.field.as_str() {
        "identity" => "Fix the identity the pipeline gives the stage",
        COUNTER_FIELD => "Fix the `countTokens` option",
        _ => "Fix whatever writes these entries to the store",
    };
    (
        format!(
            "invalid-input: {place} is {} (expected {}); recall is left untouched, with no summarizer call \
and no write this turn. {fix}",
            spot.found, spot.expected
        ),
        Evidence::InvalidInput(InvalidInput {
            summarizer_called: false,
            invalid_index: spot.index,
            invalid_field: spot.field.clone(),
        }),
    )
}

/// An `invalid-input` decline after the call: `countTokens` gave no count
/// for the new summary, so it is not used (nothing is written), and the
/// span is latched (but for a run alone): the same span would be paid for
/// again to the same end.
pub fn invalid_summary_tokens(span: SpanFacts, found: &str, caller: Caller, claim: &ClaimState) -> (String, Evidence) {
    (
        format!(
            "invalid-input: countTokens returned {found} for the summary of the span of {}{claim} (expected \
{TOKEN_COUNT_EXPECTED}); the summary is not used: recall is served verbatim, nothing is written and the span is \
{}{}{}. Fix the `countTokens` option",
            Span(span),
            caller.latched(),
            caller.suffix(),
            claim.release()
        ),
        Evidence::InvalidInput(InvalidInput {
            summarizer_called: caller.called(),
            invalid_index: None,
            invalid_field: COUNTER_FIELD.to_owned(),
        }),
    )
}

/// An `invalid-input` decline about the configured clock.
pub fn invalid_clock(found: &str) -> (String, Evidence) {
    (
        format!(
            "invalid-input: the configured `now` clock returned {found} (expected a finite number of unix ms); \
the fold is skipped and recall is served verbatim. Fix the `now` option"
        ),
        Evidence::InvalidInput(InvalidInput {
            summarizer_called: false,
            invalid_index: None,
            invalid_field: "now".to_owned(),
        }),
    )
}
