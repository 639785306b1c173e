//! How text is written, as the details audit reads it: the scripts that put
//! no space between words (CJK), the units a CJK number carries (`年`,
//! `円`, `일`), and the one spelling that fullwidth forms and number signs
//! (`１２`, `￥`, `№`, `n°`) are read in.
//!
//! A rule on scripts, not a dictionary: a detail is a run of Latin letters,
//! digits and marks, and ideographs, kana and hangul around it are not part
//! of it, but for the units that write a date, a time or an amount right
//! after a digit. UAX #29 word bounds (`unicode-segmentation`) would split
//! at the same script changes, and also between `2026` and `年`, so the
//! units would have to be joined again (README, "Details in every
//! language").

use std::borrow::Cow;

/// The Hangul fillers: letters that show as blank space and write no word.
pub fn is_hangul_filler(c: char) -> bool {
    matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

/// Whether `c` is written without spaces between words: ideographs, kana,
/// hangul, and CJK punctuation (`。`, `「`). Not the Hangul fillers.
pub fn is_cjk(c: char) -> bool {
    !is_hangul_filler(c)
        && matches!(c,
        '\u{1100}'..='\u{11FF}'      // Hangul Jamo
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
    /// Fullwidth ASCII (`１２`, `％`, `：`) and the ideographic space as
    /// ASCII; the fullwidth currency signs (`￥`, `￦`, `￡`, `￠`) as the
    /// signs; and the number signs (`№`, and `n°`, `nº`, `N°` at a word's
    /// start) as `#`, so `№ 48213`, `n° 48213` and `#48213` read alike.
    pub fn of(text: &'a str) -> Read<'a> {
        if !text.chars().any(|c| narrow(c).is_some() || matches!(c, '°' | 'º')) {
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
                '#'
            } else {
                narrow(c).unwrap_or(c)
            };
            if read != c {
                let after = chars.peek().map_or(text.len(), |&(next, _)| next);
                shifts.push((out.len(), at));
                shifts.push((out.len() + read.len_utf8(), after));
            }
            out.push(read);
            previous = c;
        }
        Read { text: Cow::Owned(out), written: text, shifts }
    }

    /// The text as written that `slice` (a slice of `self.text`) was read from.
    pub fn as_written(&self, slice: &str) -> &'a str {
        let start = slice.as_ptr() as usize - self.text.as_ptr() as usize;
        let written_at = |at: usize| match self.shifts.partition_point(|&(read, _)| read <= at) {
            0 => at,
            after => {
                let (read, written) = self.shifts[after - 1];
                written + (at - read)
            }
        };
        &self.written[written_at(start)..written_at(start + slice.len())]
    }
}

/// The one spelling of a fullwidth form or number sign, or `None` when `c`
/// is read as it is.
fn narrow(c: char) -> Option<char> {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0),
        '\u{3000}' => Some(' '),
        '￥' => Some('¥'),
        '￦' => Some('₩'),
        '￡' => Some('£'),
        '￠' => Some('¢'),
        '№' => Some('#'),
        _ => None,
    }
}

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
    fn a_text_with_nothing_to_read_otherwise_is_not_copied() {
        let read = Read::of("Order NW-48213 ships on March 3, 2026.");
        assert!(matches!(read.text, Cow::Borrowed(_)));
        assert!(matches!(Read::of("注文番号はNW-48213です。").text, Cow::Borrowed(_)));
    }

    #[test]
    fn units_attach_only_as_cjk_number_units() {
        for c in ['年', '円', '원', '일'] {
            assert!(is_cjk(c) && is_number_unit(c));
        }
        assert!(is_cjk('。') && is_cjk('の') && is_cjk('カ') && is_cjk('한') && !is_number_unit('の'));
        assert!(!is_cjk('A') && !is_cjk('é') && !is_cjk('ж') && !is_cjk('１'));
    }
}
