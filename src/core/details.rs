//! The exact details a span holds (amounts, quantities, percentages, ids,
//! emails, URLs, phone numbers, dates, times, file paths) and which of them a
//! summary kept. A summary that drops "the one detail that mattered" is the
//! most common complaint about summarizing memory; this audit lets every fold
//! say which details it lost, and, with `keepDetails`, list them on one
//! line after the summary ([`Audit::pin`]).
//!
//! Deterministic, no call, one pass over each text. It is conservative: a
//! detail counts as kept whenever the summary holds it in any spelling that
//! cannot change its meaning (case, spacing, punctuation, thousands
//! separators, a zero fraction, an ordinal suffix, a phone number's
//! formatting, a currency or `%` as a sign or a word, before or after the
//! number), since reporting a kept detail as dropped is worse than
//! missing a drop. It must be held whole, though, currency included: `$42`
//! is not kept by a summary that says `$429`, nor `1.5 kg` by one that says
//! `15 kg`, nor `$500` by one that says `€500`.

use std::collections::HashSet;

use super::format::{after_label, is_line_break, utf16_len};
use super::notation::{is_hangul_filler, is_letter_mark, Read};

mod canonical;
mod find;
mod vocabulary;
mod word_shapes;

use canonical::{canonical, Canonical};
pub use find::find;
use vocabulary::is_currency_sign;

/// How many distinct details one fold audits, the newest first: the kept
/// check is a search of the summary per detail, and the summary is never
/// longer than the span (SPEC §4 step 9), so this bounds the audit to a
/// multiple of the span's length. Newest first, as `keepDetails` pins: a
/// message full of ids cannot push a later message's details out unseen.
pub const MAX_AUDITED: usize = 500;

/// How many dropped details an event or a summary's coverage lists.
pub const MAX_LISTED: usize = 20;

/// What one fold's summary kept of its span's details.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Audit {
    /// How many of the span's distinct details the summarizer's text holds.
    pub kept: usize,
    /// How many the `keepDetails` line holds; `None` without `keepDetails`.
    pub pinned: Option<usize>,
    /// The others, which the summary entry does not hold, in span order
    /// (all of them; lists take the first [`MAX_LISTED`]).
    pub dropped: Vec<String>,
}

/// `keepDetails`: the bounds of the line that lists the details a summary
/// dropped. One long support conversation carries a few dozen details, so
/// the defaults hold 64 (or 1,000 UTF-16 units, whichever is reached first).
/// Serialized as the object form takes it (`KEEP_DETAILS_KEYS`): the
/// config's copy holds the bounds as checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PinBounds {
    pub max_details: usize,
    pub max_chars: usize,
}

impl PinBounds {
    pub const DEFAULT: PinBounds = PinBounds { max_details: 64, max_chars: 1000 };
}

/// How the `keepDetails` line starts and ends: on a line of its own, after
/// the summarizer's text, framed as the label is, so a reader (and the next
/// summarizer) takes it as data. `core::extractive` recognises it by these.
pub const PIN_START: &str = "\n[exact details from these turns: ";
pub const PIN_END: &str = "]";
const PIN_SEPARATOR: &str = "; ";

impl Audit {
    /// Distinct details found in the span (at most [`MAX_AUDITED`]).
    pub fn found(&self) -> usize {
        self.kept + self.pinned.unwrap_or(0) + self.dropped.len()
    }

    /// `keepDetails`: moves the dropped details that fit into one line and
    /// returns it ("" when none fit). At most `bounds.max_details` details,
    /// and the line is at most `bounds.max_chars` and `room` UTF-16 units
    /// long (`room` keeps the summary smaller than its span: the not-smaller
    /// rule counts the line). When not all fit, the newest win: a rolled
    /// summary's pinned details come first in its span, so they are the
    /// first let go. Whitespace inside a detail is written as one space, and
    /// fullwidth forms, number signs and every script's digits as they read
    /// (`１２，８００円` as `12,800円`, `№48213` as `#48213`, `٦٤٩` as `649`).
    /// Only a detail a reader sees as written is pinned: letters with their
    /// marks, digits, spaces, ASCII marks and currency signs. The line's frame is the
    /// stage's: no message may end it (a bracket), start another line (a
    /// line break), or write a list of its own in characters that look blank
    /// (U+2800) or are not seen at all (U+200B).
    pub fn pin(&mut self, bounds: PinBounds, room: usize) -> String {
        let budget = bounds.max_chars.min(room);
        let written: Vec<String> =
            self.dropped.iter().map(|d| Read::of(d).text.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        let mut used = utf16_len(PIN_START) + utf16_len(PIN_END);
        let mut chosen = vec![false; written.len()];
        let mut count = 0;
        let seen_as_written = |c: char| {
            let ordinary =
                c.is_alphanumeric() || is_letter_mark(c) || c.is_whitespace() || c.is_ascii_punctuation() || c == '°';
            (ordinary || is_currency_sign(c)) && !is_hangul_filler(c) && !matches!(c, '[' | ']') && !is_line_break(c)
        };
        for (index, detail) in written.iter().enumerate().rev() {
            if count == bounds.max_details {
                break;
            }
            if !detail.chars().all(seen_as_written) {
                continue;
            }
            let cost = utf16_len(detail) + if count > 0 { utf16_len(PIN_SEPARATOR) } else { 0 };
            if used + cost <= budget {
                used += cost;
                chosen[index] = true;
                count += 1;
            }
        }
        self.pinned = Some(count);
        if count == 0 {
            return String::new();
        }
        let mut pinned = Vec::with_capacity(count);
        let mut dropped = Vec::new();
        for ((detail, written), chosen) in std::mem::take(&mut self.dropped).into_iter().zip(written).zip(chosen) {
            if chosen {
                pinned.push(written);
            } else {
                dropped.push(detail);
            }
        }
        self.dropped = dropped;
        format!("{PIN_START}{}{PIN_END}", pinned.join(PIN_SEPARATOR))
    }

    /// The dropped details an event or coverage lists.
    pub fn listed(&self) -> &[String] {
        &self.dropped[..self.dropped.len().min(MAX_LISTED)]
    }
}

/// What of a span entry's text is audited: a rolled summary's without its
/// label (the stage's, whose turns, count and author are no details of the
/// span), and a message's whole, even one that starts like a label: a
/// message cannot hide its own details from the audit by forging one.
pub fn audited_text(content: &str, rolled_summary: bool) -> &str {
    match rolled_summary {
        true => after_label(content).unwrap_or(content),
        false => content,
    }
}

/// Audits `summary` against the details of `span` (its texts, oldest
/// first, each its [`audited_text`]): the newest
/// [`MAX_AUDITED`] distinct ones, each at its newest mention, listed in
/// span order.
pub fn audit<'a, I>(span: I, summary: &str) -> Audit
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: DoubleEndedIterator,
{
    // A conversation repeats its details (an order number in every turn):
    // a spelling seen once is not put in canonical form again.
    let mut spellings = HashSet::new();
    let mut canonicals = HashSet::new();
    let mut details = Vec::new();
    'texts: for text in span.into_iter().rev() {
        for detail in find(text).into_iter().rev() {
            if details.len() == MAX_AUDITED {
                break 'texts;
            }
            if !spellings.insert(detail.clone()) {
                continue;
            }
            let canonical = canonical(&detail);
            if canonicals.insert(canonical.clone()) {
                details.push((detail.into_owned(), canonical));
            }
        }
    }
    details.reverse();
    let summary = Canonical::of(summary);
    let (kept, dropped): (Vec<_>, Vec<_>) = details.into_iter().partition(|(_, canonical)| summary.holds(canonical));
    Audit { kept: kept.len(), pinned: None, dropped: dropped.into_iter().map(|(detail, _)| detail).collect() }
}

#[cfg(test)]
mod tests;
