//! The words and signs details are written with: currencies, units,
//! months, ordinals, in the languages the audit reads.

use std::borrow::Cow;

/// How a percentage is written in canonical text, whether `%`, `percent` or `per cent`.
pub(super) const PERCENT_CODE: &str = "pct";

/// Whether `suffix` is an ordinal's (`st` of `1st`), in any case.
pub(super) fn is_ordinal_suffix(suffix: &str) -> bool {
    ["st", "nd", "rd", "th"].iter().any(|ordinal| ordinal.eq_ignore_ascii_case(suffix))
}
/// Each currency sign, with the code of its most common currency (`$` is `usd`).
pub(super) const CURRENCY_SIGNS: &[(char, &str)] = &[
    ('$', "usd"),
    ('€', "eur"),
    ('£', "gbp"),
    ('¥', "jpy"),
    ('₹', "inr"),
    ('₩', "krw"),
    ('₽', "rub"),
    ('₺', "try"),
    ('₫', "vnd"),
    ('฿', "thb"),
    ('₴', "uah"),
    ('₪', "ils"),
    ('₱', "php"),
    // Written right after the digits in CJK text (`12,800円`, `649元`, `59,000원`).
    ('円', "jpy"),
    ('元', "cny"),
    ('원', "krw"),
];

/// Signs of more than one character, read before the one-character ones
/// (`R$` is not `$`).
pub(super) const WORD_SIGNS: &[(&str, &str)] =
    &[("R$", "brl"), ("US$", "usd"), ("C$", "cad"), ("A$", "aud"), ("HK$", "hkd")];

/// Each currency word, with its currency's code (`pounds` is read as money).
pub(super) const CURRENCY_WORDS: &[(&str, &str)] = &[
    ("usd", "usd"),
    ("eur", "eur"),
    ("gbp", "gbp"),
    ("jpy", "jpy"),
    ("chf", "chf"),
    ("cad", "cad"),
    ("aud", "aud"),
    ("inr", "inr"),
    ("cny", "cny"),
    ("krw", "krw"),
    ("sek", "sek"),
    ("nok", "nok"),
    ("dkk", "dkk"),
    ("mxn", "mxn"),
    ("brl", "brl"),
    ("pln", "pln"),
    ("czk", "czk"),
    ("huf", "huf"),
    ("zar", "zar"),
    ("hkd", "hkd"),
    ("sgd", "sgd"),
    ("nzd", "nzd"),
    ("uah", "uah"),
    ("zł", "pln"),
    ("kr", "kr"),
    ("руб", "rub"),
    ("reais", "brl"),
    ("dollars", "usd"),
    ("dollar", "usd"),
    ("euros", "eur"),
    ("euro", "eur"),
    ("pounds", "gbp"),
    ("yen", "jpy"),
];

/// The marks written in two words, with their codes.
pub(super) const TWO_WORD_MARKS: &[(&str, &str, &str)] =
    &[("per", "cent", PERCENT_CODE), ("us", "dollars", "usd"), ("us", "dollar", "usd")];

pub(super) fn sign_code(c: char) -> Option<&'static str> {
    // Every word's first and last characters are looked up, most of them
    // ASCII letters, and `$` is the one ASCII sign.
    if c.is_ascii() && c != '$' {
        return None;
    }
    CURRENCY_SIGNS.iter().find(|&&(sign, _)| sign == c).map(|&(_, code)| code)
}

pub(super) fn is_currency_sign(c: char) -> bool {
    sign_code(c).is_some()
}

pub(super) fn currency_code(word: &str) -> Option<&'static str> {
    let word = lower_case(word)?;
    CURRENCY_WORDS.iter().find(|&&(known, _)| known == word).map(|&(_, code)| code)
}

/// A word that names a currency on its own: a currency's word or code, or a
/// sign standing alone (`649 €`, `R$ 649,90`, `4 990 ₽`).
pub(super) fn is_currency_word(word: &str) -> bool {
    let mut chars = word.chars();
    let lone_sign = chars.next().is_some_and(is_currency_sign) && chars.next().is_none();
    lone_sign || currency_code(word).is_some() || WORD_SIGNS.iter().any(|&(sign, _)| sign == word)
}

/// Whether `word` is one of `list` (each in lower case) in any case. The
/// word is put in lower case once, not once per listed word: every fold
/// looks words up in every language's months, the first fold within a
/// serverless cold start (README, "Cold start").
pub(super) fn is_listed(word: &str, list: &[&str]) -> bool {
    lower_case(word).is_some_and(|word| list.iter().any(|&known| known == word))
}

/// No word the lists here hold is longer, in bytes (a test holds them to it).
pub(super) const LONGEST_LISTED: usize = 16;

/// `word` in lower case, char by char, as the lists here hold words (`ZŁ`
/// is `zł`, `Марта` is `марта`); borrowed when it is ASCII with no
/// capital. None when it is too long to be a listed word: a character is
/// at most four bytes and its lower case at least one, so a word of more
/// than four times [`LONGEST_LISTED`] is none, and is not copied (a
/// message may hold a word of a megabyte).
fn lower_case(word: &str) -> Option<Cow<'_, str>> {
    if word.len() > 4 * LONGEST_LISTED {
        return None;
    }
    Some(match word.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        true => Cow::Borrowed(word),
        false => Cow::Owned(word.chars().flat_map(char::to_lowercase).collect()),
    })
}

/// Whether `word` is `known` (lower case) in any case: `ZŁ` is `zł`,
/// `Марта` is `марта`.
pub(super) fn same_word(known: &str, word: &str) -> bool {
    // Most words are ASCII: compared without case as they are, every
    // summary's every word against every table.
    if word.is_ascii() {
        return known.eq_ignore_ascii_case(word);
    }
    word.chars().flat_map(char::to_lowercase).eq(known.chars())
}

pub(super) const UNITS: &[&str] = &[
    "mm", "cm", "m", "km", "in", "inch", "inches", "ft", "foot", "feet", "yd", "yards", "mi", "mile", "miles", "kg",
    "g", "mg", "lb", "lbs", "oz", "l", "ml", "liter", "liters", "litre", "litres", "gal", "gallons", "kb", "mb", "gb",
    "tb", "kib", "mib", "gib", "ms", "s", "sec", "secs", "seconds", "min", "mins", "minutes", "h", "hr", "hrs",
    "hours", "day", "days", "week", "weeks", "month", "months", "year", "years", "°c", "°f", "kw", "kwh", "w", "v",
    "mah", "hz", "khz", "mhz", "ghz", "px", "pt",
];

/// Month names as dates write them, in lower case: English (and its
/// abbreviations), French, German, Spanish, Portuguese, Italian, Dutch,
/// Polish and Russian (their genitives, as in `3 марта`, `3 marca`), with the
/// abbreviations that name nothing else (`set` and `gen` are English words).
pub(super) const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    // French
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
    "janv",
    "févr",
    "avr",
    "juil",
    "déc",
    // German
    "januar",
    "jänner",
    "februar",
    "märz",
    "juni",
    "juli",
    "oktober",
    "dezember",
    "mär",
    "okt",
    "dez",
    // Spanish
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "setiembre",
    "octubre",
    "noviembre",
    "diciembre",
    "dic",
    // Portuguese
    "janeiro",
    "fevereiro",
    "março",
    "maio",
    "junho",
    "julho",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
    // Italian
    "gennaio",
    "febbraio",
    "aprile",
    "maggio",
    "giugno",
    "luglio",
    "settembre",
    "ottobre",
    "dicembre",
    // Polish (the genitive dates write: `3 marca`)
    "stycznia",
    "lutego",
    "marca",
    "kwietnia",
    "maja",
    "czerwca",
    "lipca",
    "sierpnia",
    "września",
    "października",
    "listopada",
    "grudnia",
    // Dutch
    "januari",
    "februari",
    "maart",
    "mei",
    "augustus",
    "mrt",
    // Russian
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
    "январь",
    "февраль",
    "март",
    "апрель",
    "май",
    "июнь",
    "июль",
    "август",
    "сентябрь",
    "октябрь",
    "ноябрь",
    "декабрь",
];
