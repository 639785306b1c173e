//! How text is written, as the details audit reads it: the scripts that put
//! no space between words (CJK, Thai, Lao, Khmer, Myanmar), the units a CJK
//! number carries (`年`, `円`, `일`), and the one spelling that every
//! decimal digit, fullwidth forms, number signs and directional marks
//! (`٤٨٢١٣`, `１２`, `￥`, `№`, `n°`, U+200F) are read in.
//!
//! A rule on scripts, not a dictionary: a detail is a run of Latin letters,
//! digits and marks, and the letters of a script written without spaces
//! around it are not part of it, but for the units that write a date, a
//! time or an amount right after a digit. UAX #29 word bounds (`unicode-segmentation`) would split
//! at the same script changes, and also between `2026` and `年`, so the
//! units would have to be joined again (README, "Details in every
//! language").

use std::borrow::Cow;

/// The Hangul fillers: letters that show as blank space and write no word.
pub fn is_hangul_filler(c: char) -> bool {
    matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

/// Whether `c` is written without spaces between words: ideographs, kana,
/// hangul, CJK punctuation (`。`, `「`), and the letters of Thai, Lao,
/// Khmer and Myanmar. Not the Hangul fillers, nor those scripts' digits
/// (read as digits) and currency signs (`฿`, `៛`).
pub fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}'      // Thai, Lao (but `฿`, a currency sign)
        | '\u{1000}'..='\u{109F}'    // Myanmar
        | '\u{1100}'..='\u{11FF}'    // Hangul Jamo
        | '\u{1780}'..='\u{17FF}'    // Khmer
        | '\u{2E80}'..='\u{2FDF}'    // CJK radicals
        | '\u{3000}'..='\u{303F}'    // CJK symbols and punctuation
        | '\u{3040}'..='\u{30FF}'    // Hiragana, Katakana
        | '\u{3130}'..='\u{318F}'    // Hangul compatibility Jamo
        | '\u{31F0}'..='\u{31FF}'    // Katakana extensions
        | '\u{3400}'..='\u{4DBF}'    // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'    // CJK unified ideographs
        | '\u{AC00}'..='\u{D7AF}'    // Hangul syllables
        | '\u{F900}'..='\u{FAFF}'    // CJK compatibility ideographs
        | '\u{FF61}'..='\u{FF9F}'    // halfwidth CJK punctuation and Katakana
        | '\u{20000}'..='\u{2FA1F}') // CJK extensions B–F, compatibility supplement
        && !matches!(c, '฿' | '៛')
        && !is_hangul_filler(c)
        && decimal_digit(c).is_none()
}

/// The CJK units a number carries, written right after its digits: a date's
/// year, month and day, a time's hour and minute, and a currency
/// (`2026年3月3日`, `15時30分`, `15点30分`, `12,800円`, `649元`, `3월 3일`,
/// `59,000원`). Only right after a digit is one part of a detail, so `3일에`
/// is `3일` and `병원` is no detail.
pub fn is_number_unit(c: char) -> bool {
    matches!(
        c,
        '年' | '月'
            | '日'
            | '時'
            | '时'
            | '点'
            | '分'
            | '秒'
            | '円'
            | '元'
            | '년'
            | '월'
            | '일'
            | '시'
            | '분'
            | '초'
            | '원'
    )
}

/// A text in the spelling the audit reads, and the text as written.
pub struct Read<'a> {
    pub text: Cow<'a, str>,
    written: &'a str,
    /// Where the two part ways: for each character read otherwise, its
    /// offset in the reading and in the text as written, and the offsets
    /// just after it. Between two of these the texts are the same bytes.
    shifts: Vec<(usize, usize)>,
}

impl<'a> Read<'a> {
    /// Every decimal digit by its value (`٤٨٢١٣` and `४८२१३` as `48213`),
    /// and the Arabic decimal and thousands separators as `.` and `,`;
    /// fullwidth ASCII (`１２`, `％`, `：`) and the ideographic space as
    /// ASCII; the fullwidth currency signs (`￥`, `￦`, `￡`, `￠`) as the
    /// signs; the number signs (`№`, and `n°`, `nº`, `N°` at a word's
    /// start) as `#`, so `№ 48213`, `n° 48213` and `#48213` read alike; and
    /// the directional marks (U+200E, U+200F, U+061C and the embeddings and
    /// isolates), which are not seen, as nothing.
    pub fn of(text: &'a str) -> Read<'a> {
        if !text.chars().any(|c| !c.is_ascii() && (narrow(c) != Narrow::Same || matches!(c, '°' | 'º'))) {
            return Read { text: Cow::Borrowed(text), written: text, shifts: Vec::new() };
        }
        let mut out = String::with_capacity(text.len());
        let mut shifts = Vec::new();
        let mut chars = text.char_indices().peekable();
        let mut previous = ' ';
        while let Some((at, c)) = chars.next() {
            let word_start = !previous.is_alphanumeric();
            let sign = matches!(c, 'n' | 'N')
                && word_start
                && chars.peek().is_some_and(|&(_, next)| matches!(next, '°' | 'º'));
            let read = if sign {
                chars.next();
                Narrow::As('#')
            } else {
                narrow(c)
            };
            let read = match read {
                Narrow::Same => {
                    out.push(c);
                    previous = c;
                    continue;
                }
                Narrow::As(read) => Some(read),
                Narrow::Unseen => None,
            };
            let after = chars.peek().map_or(text.len(), |&(next, _)| next);
            shifts.push((out.len(), at));
            shifts.push((out.len() + read.map_or(0, char::len_utf8), after));
            if let Some(read) = read {
                out.push(read);
                previous = c;
            }
        }
        Read { text: Cow::Owned(out), written: text, shifts }
    }

    /// The text as written that `slice` (a slice of `self.text`) was read
    /// from, without the directional marks, which are not seen (`649
    /// \u{200F}₪` is `649 ₪`): a slice of it when it holds none.
    pub fn as_written(&self, slice: &str) -> Cow<'a, str> {
        let start = slice.as_ptr() as usize - self.text.as_ptr() as usize;
        let written_at = |at: usize| match self.shifts.partition_point(|&(read, _)| read <= at) {
            0 => at,
            after => {
                let (read, written) = self.shifts[after - 1];
                written + (at - read)
            }
        };
        let written = &self.written[written_at(start)..written_at(start + slice.len())];
        match written.contains(is_directional_mark) {
            true => Cow::Owned(written.replace(is_directional_mark, "")),
            false => Cow::Borrowed(written),
        }
    }
}

/// What the audit reads a character as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Narrow {
    Same,
    As(char),
    /// A mark that is not seen: read as nothing.
    Unseen,
}

/// How the audit reads `c` ([`Read::of`]).
fn narrow(c: char) -> Narrow {
    let read = match c {
        _ if c.is_ascii() => return Narrow::Same,
        _ if is_directional_mark(c) => return Narrow::Unseen,
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0),
        '\u{3000}' => Some(' '),
        '٫' => Some('.'),
        '٬' => Some(','),
        '￥' => Some('¥'),
        '￦' => Some('₩'),
        '￡' => Some('£'),
        '￠' => Some('¢'),
        '№' => Some('#'),
        _ => decimal_digit(c).and_then(|value| char::from_digit(value, 10)),
    };
    read.map_or(Narrow::Same, Narrow::As)
}

/// The marks written on a letter of the scripts the audit reads (vowel
/// signs, viramas, points, tone marks: Latin's combining diacritics,
/// Hebrew, Arabic, Devanagari, Thai), which Unicode does not count as
/// letters: `मार्च` and `กุมภาพันธ์` hold them. Seen with their letter.
pub fn is_letter_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{0591}'..='\u{05C7}'
        | '\u{0610}'..='\u{061A}'
        | '\u{064B}'..='\u{065F}'
        | '\u{0670}'
        | '\u{06D6}'..='\u{06ED}'
        | '\u{0900}'..='\u{0903}'
        | '\u{093A}'..='\u{094F}'
        | '\u{0951}'..='\u{0957}'
        | '\u{0962}'..='\u{0963}'
        | '\u{0E31}'
        | '\u{0E34}'..='\u{0E3A}'
        | '\u{0E47}'..='\u{0E4E}')
}

/// The bidirectional controls: marks, embeddings, overrides and isolates,
/// which change how text is laid out, never what it says.
pub fn is_directional_mark(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The value of a decimal digit (Unicode's general category Nd) other than
/// ASCII's. Every script's ten digits are consecutive, from its zero
/// ([`DIGIT_ZEROS`]), so the table holds the zeros only.
pub fn decimal_digit(c: char) -> Option<u32> {
    let code = c as u32;
    let at = DIGIT_ZEROS.partition_point(|&zero| zero <= code).checked_sub(1)?;
    let value = code - DIGIT_ZEROS[at];
    (value < 10).then_some(value)
}

/// The zero of every script's decimal digits past ASCII (Unicode 15.1),
/// ascending: Arabic-Indic, Extended Arabic-Indic, NKo, Devanagari,
/// Bengali, Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada, Malayalam,
/// Sinhala, Thai, Lao, Tibetan, Myanmar, Khmer, Mongolian, and the rest.
const DIGIT_ZEROS: [u32; 67] = [
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20,
    0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0,
    0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0,
    0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60,
    0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fullwidth_forms_and_number_signs_are_read_narrow_and_map_back_to_what_was_written() {
        let written = "注文番号：№４８２１３、金額￥１２，８００、n° 77 et pin°3";
        let read = Read::of(written);
        assert_eq!(read.text, "注文番号:#48213、金額¥12,800、# 77 et pin°3");
        let at = read.text.find("#48213").unwrap();
        assert_eq!(read.as_written(&read.text[at..at + 6]), "№４８２１３");
        let at = read.text.find("¥12,800").unwrap();
        assert_eq!(read.as_written(&read.text[at..at + "¥12,800".len()]), "￥１２，８００");
        let at = read.text.find("# 77").unwrap();
        assert_eq!(read.as_written(&read.text[at..at + 4]), "n° 77");
    }

    #[test]
    fn every_decimal_digit_reads_by_its_value_and_marks_read_as_nothing() {
        for zero in DIGIT_ZEROS {
            for value in 0..10 {
                let digit = char::from_u32(zero + value).unwrap();
                assert!(digit.is_numeric(), "{digit:?} is a digit");
                assert_eq!(decimal_digit(digit), Some(value));
            }
        }
        for not_a_digit in ['²', '½', 'Ⅻ', '①', '٪', 'a', '\u{6EF}', '\u{FF1A}'] {
            assert_eq!(decimal_digit(not_a_digit), None, "{not_a_digit:?}");
        }
        let written = "رقم الطلب ٤٨٢١٣ بمبلغ \u{200F}٦٤٩٫٥٠ ₪ ऑर्डर ४८२१३ เลขที่ ๔๘๒๑๓";
        let read = Read::of(written);
        assert_eq!(read.text, "رقم الطلب 48213 بمبلغ 649.50 ₪ ऑर्डर 48213 เลขที่ 48213");
        let at = read.text.find("649.50").unwrap();
        assert_eq!(read.as_written(&read.text[at..at + 6]), "٦٤٩٫٥٠", "the mark before it is left out");
        let at = read.text.find("649.50 ₪").unwrap();
        assert_eq!(read.as_written(&read.text[at..at + "649.50 ₪".len()]), "٦٤٩٫٥٠ ₪");
        let marked = Read::of("\u{200F}649\u{200F} \u{2067}₪\u{2069}");
        assert_eq!(marked.text, "649 ₪");
        assert_eq!(marked.as_written(&marked.text), "649 ₪", "without the marks, inside or at the ends");
    }

    #[test]
    fn a_text_with_nothing_to_read_otherwise_is_not_copied() {
        let read = Read::of("Order NW-48213 ships on March 3, 2026.");
        assert!(matches!(read.text, Cow::Borrowed(_)));
        assert!(matches!(Read::of("注文番号はNW-48213です。").text, Cow::Borrowed(_)));
    }

    #[test]
    fn units_attach_only_as_cjk_number_units() {
        for c in ['年', '円', '원', '일'] {
            assert!(is_unspaced(c) && is_number_unit(c));
        }
        assert!(
            is_unspaced('。') && is_unspaced('の') && is_unspaced('カ') && is_unspaced('한') && !is_number_unit('の')
        );
        assert!(!is_unspaced('A') && !is_unspaced('é') && !is_unspaced('ж') && !is_unspaced('１'));
        assert!(is_unspaced('ก') && is_unspaced('ມ') && is_unspaced('ក') && is_unspaced('မ'));
        assert!(!is_unspaced('๓') && !is_unspaced('໓') && !is_unspaced('٣') && !is_unspaced('ש'));
    }
}
