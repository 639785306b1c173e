//! Substring search for the short literal needles the core looks for
//! (transcript markers, extractive keywords).
//!
//! std's `str` pattern search would do, but it links its two-way searcher and
//! the panic formatting behind it (char `Debug` and the Unicode printable
//! tables). Measured on this module: 4,828 bytes of gzipped Wasm (76,027 ->
//! 71,199), which put it over its 75,000-byte budget. A byte scan is as fast
//! at these sizes. A match of a whole UTF-8 needle in UTF-8 text always
//! starts and ends on char boundaries, so the byte offsets returned here are
//! valid `str` indices.

/// The byte offset of the first occurrence of `needle` in `haystack`.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (haystack, needle) = (haystack.as_bytes(), needle.as_bytes());
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|window| window == needle)
}

pub fn contains(haystack: &str, needle: &str) -> bool {
    find(haystack, needle).is_some()
}

/// `text.replace(from, to)` for a non-empty `from`: every non-overlapping
/// occurrence, left to right. An empty `from` replaces nothing.
pub fn replace_all(text: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find(rest, from) {
        out.push_str(rest.get(..at).unwrap_or_default());
        out.push_str(to);
        rest = rest.get(at + from.len()..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_std_on_ascii_and_multibyte_text() {
        let texts = ["", "a", "<<<<<<END TRANSCRIPT>>>>>>", "中文 <<<TRANSCRIPT>>> 😀 <<<TRANSCRIPT>>>", "aaaa"];
        let needles = ["", "a", "aa", "<<<TRANSCRIPT>>>", "<<<END TRANSCRIPT>>>", "😀", "文 <", "zz"];
        for text in texts {
            for needle in needles {
                assert_eq!(find(text, needle), text.find(needle), "{text:?} / {needle:?}");
                if !needle.is_empty() {
                    assert_eq!(replace_all(text, needle, "‹x›"), text.replace(needle, "‹x›"), "{text:?} / {needle:?}");
                }
            }
        }
    }
}
