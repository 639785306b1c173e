//! Finding a span's details: its words, and the detail each word starts.

use super::vocabulary::{is_currency_sign, is_currency_word, is_listed, UNITS, WORD_SIGNS};
use super::word_shapes::{
    amount_words, date_words, is_amount, is_date_numeric, is_email, is_id, is_path, korean_date_or_time_words,
    phone_words, time_words,
};
use std::borrow::Cow;

use crate::core::notation::{is_number_unit, is_unspaced, Read};

/// Punctuation no detail starts with, which may stand before a word.
fn is_opening(c: char) -> bool {
    matches!(c, '(' | '[' | '{' | '"' | '\'' | '“' | '‘' | '«' | '<' | '*' | ',' | ';' | ':' | '!' | '?')
}

/// One word: text between white space, or between the quotes of compact
/// JSON (a tool's output, `{"order":"NW-48213","total":"$19.00"}`, has no
/// space at all, and its quotes may be escaped), without the punctuation
/// around it that no detail ends or starts with. A run of a script that
/// writes no spaces (CJK, Thai…: `is_unspaced`) is a word of its own, which no detail starts
/// with, so `注文番号はNW-48213です` holds the word `NW-48213`, and a detail of
/// several words never reaches across one; a unit right after a digit is
/// part of the number's word (`2026年3月3日`, `12,800円`).
fn words(text: &str) -> Vec<&str> {
    let closing = |c: char| {
        matches!(
            c,
            '.' | ',' | ';' | ':' | '!' | '?' | ')' | ']' | '}' | '"' | '\'' | '”' | '’' | '»' | '>' | '*' | '\\'
            // Arabic's comma, semicolon and question mark; the Devanagari danda.
            | '،' | '؛' | '؟' | '।' | '॥'
        )
    };
    let mut words = Vec::new();
    // Where the current word starts, and whether it is a run of a script
    // written without spaces.
    let mut current: Option<(usize, bool)> = None;
    let mut previous = ' ';
    for (at, c) in text.char_indices() {
        let kind = match c {
            _ if c.is_whitespace() || c == '"' => None,
            _ if is_unspaced(c) && !(is_number_unit(c) && previous.is_ascii_digit()) => Some(true),
            _ => Some(false),
        };
        if let Some((from, unspaced)) = current {
            if kind != Some(unspaced) {
                words.push(&text[from..at]);
                current = None;
            }
        }
        if current.is_none() {
            current = kind.map(|unspaced| (at, unspaced));
        }
        previous = c;
    }
    if let Some((from, _)) = current {
        words.push(&text[from..]);
    }
    words
        .into_iter()
        .map(|word| after_hebrew_prefix(word.trim_start_matches(is_opening).trim_end_matches(closing)))
        .filter(|word| !word.is_empty())
        .collect()
}

/// Hebrew joins a one-letter word ("in", "the", "and"…) to a number with a
/// hyphen (`ב-3`, `ה-15%`): the number is the word a detail starts with.
fn after_hebrew_prefix(word: &str) -> &str {
    let mut chars = word.chars();
    let prefixed = chars.next().is_some_and(|c| "בהוכלמש".contains(c)) && chars.next() == Some('-');
    match chars.as_str() {
        number if prefixed && number.starts_with(|c: char| c.is_ascii_digit()) => number,
        _ => word,
    }
}

/// Every detail in `text`, in order (a detail may repeat), each as written
/// there but for the directional marks inside it, which are not seen
/// (`649 \u{200F}₪` is `649 ₪`).
pub fn find(text: &str) -> Vec<Cow<'_, str>> {
    let read = Read::of(text);
    detect(&read.text).into_iter().map(|detail| read.as_written(detail)).collect()
}

/// Every detail in `text` as the audit reads it (narrow, [`Read::of`]).
pub(super) fn detect(text: &str) -> Vec<&str> {
    let words = words(text);
    let mut found = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let (detail, used) = detail_at(text, &words, at);
        match detail {
            Some(detail) => {
                found.push(detail);
                at += used;
            }
            None => at += 1,
        }
    }
    found
}

/// The detail that starts at `words[at]`, and how many words it spans.
/// `words` are slices of `text`, so a detail of several words is the text
/// from the first to the last, as written.
fn detail_at<'a>(text: &'a str, words: &[&'a str], at: usize) -> (Option<&'a str>, usize) {
    let spot = Spot { text, words, at, word: words[at], next: words.get(at + 1).copied().unwrap_or("") };
    if spot.word.starts_with(is_unspaced) {
        return (None, 1);
    }
    // Most words are prose: with no digit and none of the marks a detail
    // carries, only a word before a number can start one, so only
    // [`PROSE_DETECTORS`] are tried on it. Every fold runs the audit, the
    // first one within a serverless cold start, which this shortens
    // (README, "Cold start").
    let detectors = if spot.is_marked() {
        MARKED_DETECTORS
    } else if spot.next.starts_with(|c: char| c.is_ascii_digit()) {
        PROSE_DETECTORS
    } else {
        &[]
    };
    match detectors.iter().find_map(|detect| detect(&spot)) {
        Some(count) => (Some(spot.joined(count)), count),
        None => (None, 1),
    }
}

/// How many words the detail a detector reads at a spot spans, if it reads one there.
type Detector = fn(&Spot) -> Option<usize>;

/// The detectors tried on a word with a digit or a detail's mark, in
/// order: the first that reads a detail wins, so one that reads more words
/// (or a more specific shape) comes before one its words would also match.
/// A new class of detail is one row here (and, if it has no digit and no
/// mark, one in [`PROSE_DETECTORS`]).
const MARKED_DETECTORS: &[Detector] = &[
    url,
    email,
    // Before a phone number: `1 234 567 €` is an amount, not seven digits.
    amount_then_currency_name,
    phone,
    numeric_date,
    path,
    amount_with_currency_sign,
    currency_name_then_amount,
    percentage,
    spaced_percentage_or_number_sign,
    korean_date_or_time,
    percentage_in_words,
    time,
    date,
    amount_then_unit,
    number_with_unit,
    id,
];

/// The detectors tried on a word of prose before a number: a month's name
/// before a day, a currency's name before an amount.
const PROSE_DETECTORS: &[Detector] = &[date, currency_name_then_amount];

/// A word a detector looks at, among the words of `text`.
struct Spot<'a, 'w> {
    text: &'a str,
    words: &'w [&'a str],
    at: usize,
    word: &'a str,
    /// The word after it, or "" at the end.
    next: &'a str,
}

impl<'a> Spot<'a, '_> {
    /// The text from this word to the `count`-th word from it, as written.
    fn joined(&self, count: usize) -> &'a str {
        let offset = |word: &str| word.as_ptr() as usize - self.text.as_ptr() as usize;
        let last = self.words[self.at + count - 1];
        self.text.get(offset(self.word)..offset(last) + last.len()).unwrap_or(self.word)
    }

    fn starts(&self, prefix: &str) -> bool {
        self.word.get(..prefix.len()).is_some_and(|start| start.eq_ignore_ascii_case(prefix))
    }

    /// Whether the word has a digit or a mark only a detail carries.
    fn is_marked(&self) -> bool {
        let word = self.word;
        word.bytes().any(|b| b.is_ascii_digit() || matches!(b, b'@' | b'/' | b'\\' | b'#' | b'%'))
            || word.starts_with(is_currency_sign)
            || word.ends_with(is_currency_sign)
            || self.starts("www.")
    }
}

fn one_word(found: bool) -> Option<usize> {
    found.then_some(1)
}

fn url(spot: &Spot) -> Option<usize> {
    one_word(spot.starts("http://") || spot.starts("https://") || (spot.starts("www.") && spot.word.len() > 6))
}

fn email(spot: &Spot) -> Option<usize> {
    one_word(is_email(spot.word))
}

/// `1 234 567 €`, `4 990 000 ₽`.
fn amount_then_currency_name(spot: &Spot) -> Option<usize> {
    let count = amount_words(spot.words, spot.at)?;
    spot.words.get(spot.at + count).is_some_and(|after| is_currency_word(after)).then_some(count + 1)
}

fn phone(spot: &Spot) -> Option<usize> {
    phone_words(spot.words, spot.at)
}

fn numeric_date(spot: &Spot) -> Option<usize> {
    one_word(is_date_numeric(spot.word))
}

fn path(spot: &Spot) -> Option<usize> {
    one_word(is_path(spot.word))
}

/// `$19.00`, `649,90€`, or an amount after a sign written as a word (`R$649,90`).
fn amount_with_currency_sign(spot: &Spot) -> Option<usize> {
    let word = spot.word;
    let symbol = word.starts_with(is_currency_sign) || word.ends_with(is_currency_sign);
    let word_sign = WORD_SIGNS.iter().find_map(|(sign, _)| word.strip_prefix(sign));
    one_word((symbol && is_amount(word.trim_matches(is_currency_sign))) || word_sign.is_some_and(is_amount))
}

/// `EUR 1 234,56`, `R$ 649,90`.
fn currency_name_then_amount(spot: &Spot) -> Option<usize> {
    is_currency_word(spot.word).then(|| amount_words(spot.words, spot.at + 1)).flatten().map(|count| 1 + count)
}

/// `15%`, and `%15` as Turkish writes it.
fn percentage(spot: &Spot) -> Option<usize> {
    let word = spot.word;
    one_word(word.strip_suffix('%').or_else(|| word.strip_prefix('%')).is_some_and(is_amount))
}

/// `15 %`, as French, German and Russian write it; `# 48213`, as a
/// number sign read as `#` (`№ 48213`, `n° 48213`) is written.
fn spaced_percentage_or_number_sign(spot: &Spot) -> Option<usize> {
    let (word, next) = (spot.word, spot.next);
    ((is_amount(word) && next == "%") || (word == "#" && (is_amount(next) || is_id(next)))).then_some(2)
}

fn korean_date_or_time(spot: &Spot) -> Option<usize> {
    korean_date_or_time_words(spot.words, spot.at)
}

/// `15 percent`, `15 per cent`.
fn percentage_in_words(spot: &Spot) -> Option<usize> {
    if !is_amount(spot.word) {
        return None;
    }
    if spot.next.eq_ignore_ascii_case("percent") {
        return Some(2);
    }
    let cent = spot.words.get(spot.at + 2).is_some_and(|word| word.eq_ignore_ascii_case("cent"));
    (spot.next.eq_ignore_ascii_case("per") && cent).then_some(3)
}

fn time(spot: &Spot) -> Option<usize> {
    time_words(spot.words, spot.at)
}

fn date(spot: &Spot) -> Option<usize> {
    date_words(spot.words, spot.at)
}

/// `12 kg`.
fn amount_then_unit(spot: &Spot) -> Option<usize> {
    (is_amount(spot.word) && is_listed(spot.next, UNITS)).then_some(2)
}

/// `12kg`, `3.5GB`.
fn number_with_unit(spot: &Spot) -> Option<usize> {
    let split = spot.word.find(|c: char| !c.is_ascii_digit() && c != '.' && c != ',')?;
    let (number, unit) = spot.word.split_at(split);
    one_word(!number.is_empty() && is_amount(number) && is_listed(unit, UNITS))
}

fn id(spot: &Spot) -> Option<usize> {
    one_word(is_id(spot.word))
}
