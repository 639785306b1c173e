//! The shapes a detail's words take: an amount, a phone number, a date, a
//! time, an email, a path, an id. Each reads the words from one position
//! and says how many it takes; `find`'s detectors try them in order.

use super::vocabulary::{is_listed, is_ordinal_suffix, same_word, DAY_FIRST_MONTHS, MONTHS};
use crate::core::notation::is_number_unit;

/// The amount at `words[at]` and how many words it takes: one, or with a
/// space as the thousands separator (`4 990`, `1 234,56`) a short first
/// group and groups of three digits, the last of which may hold the
/// fraction. Only an amount with a currency next to it is read across
/// words: a space between bare numbers separates them as often. At most
/// [`MAX_GROUPS`] groups follow the first (a quintillion): each word may
/// start an amount, so an unbounded run of groups would make a long list of
/// numbers quadratic to read.
pub(super) fn amount_words(words: &[&str], at: usize) -> Option<usize> {
    const MAX_GROUPS: usize = 6;
    let first = words.get(at).filter(|word| is_amount(word))?;
    let mut count = 1;
    if first.len() <= 3 && first.bytes().all(|b| b.is_ascii_digit()) {
        while let Some(group) = words.get(at + count).filter(|_| count <= MAX_GROUPS) {
            let (digits, fraction) = group.split_at(group.bytes().take_while(u8::is_ascii_digit).count());
            let decimal = |f: &str| {
                (2..=3).contains(&f.len()) && f.starts_with([',', '.']) && f[1..].bytes().all(|b| b.is_ascii_digit())
            };
            if digits.len() != 3 || !(fraction.is_empty() || decimal(fraction)) {
                break;
            }
            count += 1;
            if !fraction.is_empty() {
                break;
            }
        }
    }
    Some(count)
}

/// `3월 3일`, `2026년 3월 3일`, `15시 30분`: Korean writes a date's and a
/// time's parts as words of their own (written together, as in `3월3일`, or
/// in Japanese and Chinese, `2026年3月3日`, they are one word, an id).
pub(super) fn korean_date_or_time_words(words: &[&str], at: usize) -> Option<usize> {
    let word = |offset: usize| words.get(at + offset).copied().unwrap_or("");
    let part = |offset: usize, unit: char, digits: usize| {
        word(offset)
            .strip_suffix(unit)
            .is_some_and(|n| (1..=digits).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if part(0, '년', 4) && part(1, '월', 2) {
        return Some(if part(2, '일', 2) { 3 } else { 2 });
    }
    ((part(0, '월', 2) && part(1, '일', 2)) || (part(0, '시', 2) && part(1, '분', 2))).then_some(2)
}

/// `42`, `1,299`, `42.50`, `1.299,00`: digits with separators between them.
pub(super) fn is_amount(word: &str) -> bool {
    let bytes = word.as_bytes();
    !bytes.is_empty()
        && bytes[0].is_ascii_digit()
        && bytes[bytes.len() - 1].is_ascii_digit()
        && bytes.iter().all(|b| b.is_ascii_digit() || *b == b'.' || *b == b',')
        && !word.contains("..")
        && !word.contains(",,")
}

pub(super) fn is_email(word: &str) -> bool {
    let Some((local, domain)) = word.split_once('@') else { return false };
    let tld = domain.rsplit('.').next().unwrap_or("");
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && tld.len() >= 2
        && tld.chars().all(|c| c.is_ascii_alphabetic())
}

/// `2026-03-14`, `3/14/2026`, `14.03.2026`.
pub(super) fn is_date_numeric(word: &str) -> bool {
    let number = |part: &str| !part.is_empty() && part.len() <= 4 && part.bytes().all(|b| b.is_ascii_digit());
    ['-', '/', '.'].into_iter().any(|separator| {
        let mut parts = word.split(separator);
        let (Some(a), Some(b), Some(c), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            return false;
        };
        let long = [a, b, c].iter().filter(|p| p.len() == 4).count();
        let year_at_an_end = a.len() == 4 || c.len() == 4 || c.len() == 2;
        number(a) && number(b) && number(c) && long <= 1 && year_at_an_end && (separator != '.' || long == 1)
    })
}

/// `/var/log/app.log`, `./src/main.rs`, `~/notes.txt`, `C:\Users\dana`, `src/lib.rs`.
pub(super) fn is_path(word: &str) -> bool {
    let rooted = ["/", "./", "../", "~/"].iter().any(|root| word.starts_with(root)) && word.len() > 2;
    let windows = word.len() > 3
        && word.as_bytes()[1] == b':'
        && word.as_bytes()[2] == b'\\'
        && word.as_bytes()[0].is_ascii_alphabetic();
    let relative = word.contains('/')
        && word.rsplit('/').next().is_some_and(|file| file.contains('.') && !file.ends_with('.'))
        && word.split('/').all(|part| !part.is_empty());
    let letters = word.chars().any(char::is_alphabetic);
    letters && (rooted || windows || relative)
}

/// A phone number, which may span words: `+1 (555) 123-4567`,
/// `555-123-4567`, `+49 30 1234567`. Seven to fifteen digits, written with a
/// `+` or with separators (a bare run of digits is an order number as often).
pub(super) fn phone_words(words: &[&str], at: usize) -> Option<usize> {
    let first = words[at];
    if !first.starts_with(['+', '(']) && !first.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let phone_like =
        |word: &str| word.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'(' | b')' | b'-' | b'.'));
    let mut digits = 0;
    let mut count = 0;
    let mut separated = false;
    while let Some(word) = words.get(at + count).filter(|word| phone_like(word)) {
        let word_digits = word.bytes().filter(u8::is_ascii_digit).count();
        if word_digits == 0 || digits + word_digits > 15 {
            break;
        }
        separated |= count > 0 || word.contains(['-', '(', ')', '.']) || word.starts_with('+');
        digits += word_digits;
        count += 1;
    }
    let dotted_decimal = count == 1 && first.matches('.').count() == 1;
    (digits >= 7 && separated && !dotted_decimal && !is_amount_with_commas(first, count)).then_some(count)
}

/// `1,234,567`: a number, not a phone.
fn is_amount_with_commas(first: &str, count: usize) -> bool {
    count == 1 && first.contains(',') && is_amount(first)
}

/// `14:30`, `9:05:10`, `5pm`, `5 pm`, `14:30 UTC`.
pub(super) fn time_words(words: &[&str], at: usize) -> Option<usize> {
    let word = words[at];
    let meridiem = |w: &str| {
        let w = w.trim_end_matches('.');
        ["am", "pm", "a.m", "p.m"].iter().any(|m| m.eq_ignore_ascii_case(w))
    };
    let clock = |w: &str| {
        let mut parts = w.split(':');
        let hour = parts.next().unwrap_or("");
        let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        let mut minutes = 0;
        for part in parts.by_ref() {
            if part.len() != 2 || !digits(part) {
                return false;
            }
            minutes += 1;
        }
        hour.len() <= 2 && digits(hour) && (1..=2).contains(&minutes)
    };
    let hour = |w: &str| !w.is_empty() && w.len() <= 2 && w.bytes().all(|b| b.is_ascii_digit());
    let next = words.get(at + 1).copied().unwrap_or("");
    if clock(word) {
        return Some(if meridiem(next) { 2 } else { 1 });
    }
    if let Some((number, suffix)) =
        word.len().checked_sub(2).and_then(|split| Some((word.get(..split)?, word.get(split..)?)))
    {
        if (suffix.eq_ignore_ascii_case("am") || suffix.eq_ignore_ascii_case("pm")) && (hour(number) || clock(number)) {
            return Some(1);
        }
    }
    (hour(word) && meridiem(next)).then_some(2)
}

/// `March 14`, `March 14th, 2026`, `14 March 2026`, `Mar. 3`, `3 mars
/// 2026`, `3. März`, `3 марта 2026`, `3 de marzo de 2026`, `3 במרץ 2026`,
/// `3 มีนาคม 2569`, `3 tháng 3 năm 2026`: a month's name (or, in
/// Vietnamese, its number after `tháng`) with a day, or a month's number
/// with its year (`tháng 3 năm 2026`). A month alone, or `may` alone, is no
/// detail, nor a number and a word and a year (`3 items 2026`).
pub(super) fn date_words(words: &[&str], at: usize) -> Option<usize> {
    let month = |w: &str| is_listed(w.trim_end_matches('.'), MONTHS);
    // Hebrew writes "in" joined to the month: `במרץ`.
    let day_first =
        |w: &str| is_listed(w, DAY_FIRST_MONTHS) || w.strip_prefix('ב').is_some_and(|w| is_listed(w, DAY_FIRST_MONTHS));
    let month_after_day = |w: &str| month(w) || day_first(w);
    let day = |w: &str| {
        let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let suffix = &w[digits.len()..];
        let value = (digits.len() <= 2)
            .then(|| digits.bytes().try_fold(0u32, |n, b| b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))))
            .flatten();
        !digits.is_empty()
            && digits.len() <= 2
            && (suffix.is_empty() || is_ordinal_suffix(suffix))
            && value.is_some_and(|n| (1..=31).contains(&n))
    };
    let year = |w: &str| w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit());
    let next = words.get(at + 1).copied().unwrap_or("");
    let after = words.get(at + 2).copied().unwrap_or("");
    // The day first: it rejects most words in a few steps, a month's name
    // only after every language's months.
    if day(next) && month(words[at]) {
        return Some(if year(after) { 3 } else { 2 });
    }
    if day(words[at]) && month_after_day(next) {
        return Some(if year(after) { 3 } else { 2 });
    }
    // Spanish and Portuguese: `3 de marzo`, `3 de março de 2026`.
    let of = |offset: usize| words.get(at + offset).is_some_and(|w| *w == "de");
    let word = |offset: usize| words.get(at + offset).copied().unwrap_or("");
    if day(words[at]) && of(1) && month(word(2)) {
        return Some(if of(3) && year(word(4)) { 5 } else { 3 });
    }
    // Vietnamese: `3 tháng 3 năm 2026`, `ngày 3 tháng 3`, `tháng 3 năm
    // 2026`. A day and a month's number is a date only after `ngày` ("day")
    // or before a year: `2 tháng 3 lần` is "2 months, 3 times".
    let month_number = |w: &str| w.len() <= 2 && w.parse::<u8>().is_ok_and(|n| (1..=12).contains(&n));
    let marked = |offset: usize, marker: &str| same_word(marker, word(offset));
    if day(words[at]) && marked(1, "tháng") && month_number(word(2)) {
        let after_day_word = at.checked_sub(1).is_some_and(|before| same_word("ngày", words[before]));
        match marked(3, "năm") && year(word(4)) {
            true => return Some(5),
            false if after_day_word => return Some(3),
            false => {}
        }
    }
    (marked(0, "tháng") && month_number(word(1)) && marked(2, "năm") && year(word(3))).then_some(4)
}

/// An id: letters and digits mixed (`CS-20931`, `RMA-7731`, `A1B2C3`), or
/// `#` and digits (`#4512`, `#NW-48213`), and so the CJK dates, times and
/// quantities written as one word (`2026年3月3日`, `15時30分`, `3日`). Not an
/// ordinal (`3rd`) or an English quantity.
pub(super) fn is_id(word: &str) -> bool {
    let body = word.strip_prefix('#').unwrap_or(word);
    let digits = body.chars().any(|c| c.is_ascii_digit());
    let letters = body.chars().any(|c| c.is_alphabetic());
    let id_chars = body.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '/' | '.'));
    let ordinal = {
        let number = body.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let suffix = &body[number.len()..];
        !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) && is_ordinal_suffix(suffix)
    };
    // A number and a CJK unit is a quantity, a date or a time however short
    // (`3日`, `2年`, `15分`), as `2 years` is in English.
    let long_enough = body.chars().count() >= 3 || body.ends_with(is_number_unit);
    id_chars && digits && !ordinal && (word.starts_with('#') || (letters && long_enough))
}
