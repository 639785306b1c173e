//! The one spelling every writing of a detail shares, and where a summary
//! holds a detail in it.

use super::find::detect;
use super::vocabulary::{
    currency_code, is_currency_sign, is_ordinal_suffix, same_word, sign_code, PERCENT_CODE, TWO_WORD_MARKS, WORD_SIGNS,
};
use crate::core::notation::{is_number_unit, is_unspaced, Read};

/// The text every spelling of a detail shares (see [`Canonical::scan`]).
pub(super) fn canonical(detail: &str) -> String {
    let read = Read::of(detail);
    let mut out = Canonical { text: String::new(), bounds: vec![0] };
    out.scan(&read.text);
    out.text
}

/// A text in the one spelling its details share, and where its words start
/// and end in that spelling.
pub(super) struct Canonical {
    text: String,
    /// The byte offsets in `text` where a word of the original starts or ends, ascending.
    bounds: Vec<usize>,
}

impl Canonical {
    /// A summary in the spelling its details share: each detail it holds,
    /// found as [`find`] finds the span's, in that detail's own spelling,
    /// and the text between them scanned alike. So a summary that copies a
    /// span keeps every detail of it, and a currency or a number next to
    /// one detail never changes how another is spelled (`42 USD 3 March`).
    pub(super) fn of(text: &str) -> Canonical {
        let read = Read::of(text);
        let text: &str = &read.text;
        let mut out = Canonical { text: String::new(), bounds: vec![0] };
        let mut scanned = 0;
        for detail in detect(text) {
            let at = detail.as_ptr() as usize - text.as_ptr() as usize;
            out.scan(&text[scanned..at]);
            out.scan(detail);
            scanned = at + detail.len();
        }
        out.scan(&text[scanned..]);
        out
    }

    /// Appends `text` (read narrow) in canonical spelling: lower case,
    /// letters and digits only (so spacing and punctuation go), numbers
    /// without thousands separators and with `.` as the decimal one
    /// ([`Canonical::push_number`]), no ordinal suffix (`3rd` → `3`), a
    /// character of a script written without spaces as a word of its own,
    /// and a currency or a percentage,
    /// as a sign or a word, written as one code after its number
    /// ([`mark_at`]): `$1,299`, `USD 1,299` and `1,299 dollars` are all
    /// `1299 usd`, `¥12,800` and `12,800円` are `12800 jpy`, `EUR-20931` is
    /// `20931 eur`, and `20%` and `20 per cent` are `20 pct`; `€42` is not
    /// `$42`, nor `EUR-20931` the number `20931`.
    fn scan(&mut self, text: &str) {
        let out = self;
        // A currency that may name the amount after it (`$42`, `USD 42`,
        // `EUR-20931`): written after the number that follows it past spacing
        // and punctuation, or where it stands when a word does (`USD
        // account`), unless it was written already, as the last number's.
        let mut before_number: Option<(&str, bool)> = None;
        // No word since the last number: a currency named now may be that
        // number's (`42 USD`, `20931-EUR`) as well as the next one's.
        let mut after_number = false;
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c.is_ascii_digit() {
                let number = number_at(rest);
                out.push_number(number);
                rest = &rest[number.len()..];
                // An ordinal suffix: `3rd`, `14th`.
                let suffix = rest.get(..2).unwrap_or("");
                let boundary =
                    rest.get(2..).and_then(|after| after.chars().next()).is_none_or(|c| !c.is_alphanumeric());
                if is_ordinal_suffix(suffix) && boundary {
                    rest = &rest[2..];
                }
                if let Some((code, _)) = before_number.take() {
                    out.push_word(code);
                }
                after_number = true;
                continue;
            }
            // `円`, `元` and `원` name the number before them only: elsewhere
            // they are words (`병원`).
            let mark = mark_at(rest).filter(|_| after_number || !is_number_unit(c));
            if let Some((code, after)) = mark {
                out.flush_currency(before_number.take());
                // `%15` (Turkish) is `15%`: written after its number.
                let before_its_number = after.starts_with(|c: char| c.is_ascii_digit());
                if code == PERCENT_CODE && !before_its_number {
                    out.push_word(code);
                } else if code == PERCENT_CODE {
                    before_number = Some((code, after_number));
                } else {
                    // Between two numbers (`#48213 $19`), it may be either's:
                    // written for both, so a summary that copies the text keeps both.
                    if after_number {
                        out.push_word(code);
                    }
                    out.bound();
                    if !is_number_unit(c) {
                        before_number = Some((code, after_number));
                    }
                }
                after_number = false;
                rest = after;
                continue;
            }
            if !c.is_alphanumeric() {
                out.bound();
                rest = &rest[c.len_utf8()..];
                continue;
            }
            out.flush_currency(before_number.take());
            after_number = false;
            // A word of letters, or one other letter or digit (`²`, `½`); a
            // character of a script written without spaces (`is_unspaced`) is
            // a word of its own: `NW-48213의` holds `NW-48213`.
            let len = match c.is_alphabetic() && !is_unspaced(c) {
                true => rest.find(|c: char| !c.is_alphabetic() || is_unspaced(c)).unwrap_or(rest.len()),
                false => c.len_utf8(),
            };
            let word = &rest[..len];
            if is_unspaced(c) {
                out.push_word(word);
            } else {
                out.text.extend(word.chars().flat_map(char::to_lowercase));
            }
            rest = &rest[word.len()..];
        }
        out.flush_currency(before_number);
        out.bound();
    }

    /// Writes a currency that no number followed, unless it was written already.
    fn flush_currency(&mut self, waiting: Option<(&str, bool)>) {
        if let Some((code, false)) = waiting {
            self.push_word(code);
        }
    }

    /// A word of its own: `usd` after `1299` is `1299` then `usd`.
    fn push_word(&mut self, word: &str) {
        self.bound();
        self.text.push_str(word);
        self.bound();
    }

    /// Marks the end of a word (and the start of the next) where `text` ends now.
    fn bound(&mut self) {
        if self.bounds.last() != Some(&self.text.len()) {
            self.bounds.push(self.text.len());
        }
    }

    /// A number in its one spelling: `1,299.50`, `1.299,5` and `1299.5` are
    /// `1299.5`, and `5,000.00` is `5000`. The decimal separator is the last
    /// one, when it is the only one not followed by three digits (three
    /// digits are thousands) and either the number's only separator or
    /// followed by one or two digits (`555.123.4567` is a phone number, not
    /// a decimal); it is written `.`, with the fraction's trailing zeros left
    /// out, and all of it when they are all it holds.
    fn push_number(&mut self, number: &str) {
        let groups: Vec<&str> = number.split(['.', ',']).collect();
        let (last, whole) = groups.split_last().unwrap_or((&"", &[]));
        let only_odd_group = last.len() != 3 && groups[1..].iter().filter(|g| g.len() != 3).count() == 1;
        let decimal = !whole.is_empty() && only_odd_group && (whole.len() == 1 || last.len() <= 2);
        if !decimal {
            groups.iter().for_each(|group| self.text.push_str(group));
            return;
        }
        whole.iter().for_each(|group| self.text.push_str(group));
        let fraction = last.trim_end_matches('0');
        if !fraction.is_empty() {
            self.text.push('.');
            self.text.push_str(fraction);
        }
    }

    /// Whether `detail` (in canonical spelling) is here as whole words. One
    /// linear search (Knuth–Morris–Pratt) that sees every occurrence, the
    /// overlapping ones too, since an occurrence without word bounds can
    /// hide one with them (`15時30分15` after `order15時30分`): std's search
    /// skips overlaps, and a check at every word start is quadratic.
    pub(super) fn holds(&self, detail: &str) -> bool {
        let bounded = |at: usize| self.bounds.binary_search(&at).is_ok();
        let (pattern, text) = (detail.as_bytes(), self.text.as_bytes());
        if pattern.is_empty() {
            return false;
        }
        // border[i]: the longest proper prefix of pattern[..=i] that also ends it.
        let mut border = vec![0; pattern.len()];
        let mut k = 0;
        for i in 1..pattern.len() {
            while k > 0 && pattern[i] != pattern[k] {
                k = border[k - 1];
            }
            if pattern[i] == pattern[k] {
                k += 1;
            }
            border[i] = k;
        }
        let mut k = 0;
        for (i, &byte) in text.iter().enumerate() {
            while k > 0 && byte != pattern[k] {
                k = border[k - 1];
            }
            if byte == pattern[k] {
                k += 1;
            }
            if k == pattern.len() {
                if bounded(i + 1 - k) && bounded(i + 1) {
                    return true;
                }
                k = border[k - 1];
            }
        }
        false
    }
}

/// When `text` starts with a currency's or a percentage's sign or word
/// (`$`, `USD`, `dollars`, `US dollars`, `%`, `percent`, `per cent`), its
/// one code (a sign is its most common currency's: `$` is `usd`, `¥` is
/// `jpy`; a sign with no listed currency, `₨`, is its own code, so it is
/// never another currency's) and the text after it.
fn mark_at(text: &str) -> Option<(&str, &str)> {
    if let Some(&(sign, code)) = WORD_SIGNS.iter().find(|(sign, _)| text.starts_with(sign)) {
        return Some((code, &text[sign.len()..]));
    }
    let first = text.chars().next()?;
    let (written, after) = text.split_at(first.len_utf8());
    // Most characters are letters: only a currency sign is looked up.
    if is_currency_sign(first) {
        return Some((sign_code(first).unwrap_or(written), after));
    }
    if first == '%' {
        return Some((PERCENT_CODE, after));
    }
    let (word, rest) = split_word(text);
    if word.is_empty() {
        return None;
    }
    let is = |known: &str| same_word(known, word);
    if TWO_WORD_MARKS.iter().any(|&(first, _, _)| is(first)) {
        let (next, after) = split_word(rest.trim_start());
        let pair = TWO_WORD_MARKS.iter().find(|&&(first, second, _)| is(first) && same_word(second, next));
        if let Some(&(_, _, code)) = pair {
            return Some((code, after));
        }
    }
    let code = if is("percent") { Some(PERCENT_CODE) } else { currency_code(word) };
    code.map(|code| (code, rest))
}

/// The letters `text` starts with, and what follows them: none when it
/// starts with a character of a script written without spaces, a word of its own (so a long run of them
/// is not read again at each of its characters).
fn split_word(text: &str) -> (&str, &str) {
    text.split_at(text.find(|c: char| !c.is_alphabetic() || is_unspaced(c)).unwrap_or(text.len()))
}

/// The number `text` starts with: digits, with a `.` or `,` between two.
fn number_at(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut end = 0;
    while end < bytes.len()
        && (bytes[end].is_ascii_digit()
            || (matches!(bytes[end], b'.' | b',') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)))
    {
        end += 1;
    }
    &text[..end]
}
