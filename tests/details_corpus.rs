//! The details audit over the multilingual corpus (`tests/corpus/
//! details-multilingual.json`): support messages in many languages with
//! their planted details, detail-free prose, and spellings a summary may
//! keep a detail in. Native `cargo test`, with a proptest over mixed-script
//! text.
#![cfg(not(target_arch = "wasm32"))]

use std::borrow::Cow;

use footprint_summarize::core::details::{audit, find};
use footprint_summarize::core::notation::is_directional_mark;
use proptest::prelude::*;
use serde_json::Value;

fn corpus() -> Value {
    serde_json::from_str(include_str!("corpus/details-multilingual.json")).expect("the corpus is JSON")
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_else(|| panic!("`{key}` is a string in {value}"))
}

/// Every planted detail, in every language, is found as written.
#[test]
fn every_planted_detail_is_found_as_written_in_every_language() {
    let corpus = corpus();
    let mut languages = std::collections::BTreeSet::new();
    let mut missed = Vec::new();
    for message in corpus["messages"].as_array().expect("messages") {
        languages.insert(text(message, "lang"));
        let found = find(text(message, "text"));
        for detail in message["details"].as_array().expect("details") {
            let detail = detail.as_str().expect("a detail is a string");
            if !found.iter().any(|found| found == detail) {
                missed.push(format!("{detail:?} in {:?} (found {found:?})", text(message, "text")));
            }
        }
    }
    let scripts = ["ja", "zh", "ko", "th", "ar", "he", "hi", "it", "nl", "pl", "tr", "vi", "id"];
    assert!(languages.len() >= 19 && scripts.iter().all(|l| languages.contains(l)), "{languages:?}");
    assert_eq!(missed, Vec::<String>::new());
}

#[test]
fn detail_free_prose_in_each_language_has_no_details() {
    for prose in corpus()["prose"].as_array().expect("prose") {
        assert_eq!(find(text(prose, "text")), Vec::<&str>::new(), "{}", text(prose, "lang"));
    }
}

#[test]
fn a_detail_is_kept_in_any_spelling_that_keeps_its_meaning_and_only_then() {
    for pair in corpus()["spellings"].as_array().expect("spellings") {
        let (detail, written, summary) = (text(pair, "detail"), text(pair, "in"), text(pair, "summary"));
        assert_eq!(find(written), [detail], "{written:?} holds exactly {detail:?}");
        let result = audit([written], summary);
        let kept = pair["kept"].as_bool().expect("kept is a boolean");
        assert_eq!(
            (result.kept, result.dropped.len()),
            if kept { (1, 0) } else { (0, 1) },
            "{detail:?} in {summary:?}"
        );
    }
}

/// Mixed-script text as chats write it: CJK and Latin words with details
/// between them, glued together or apart, fullwidth forms included.
fn mixed_script() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "注文番号は",
        "です",
        "。",
        "、",
        "に",
        "の",
        "주문번호",
        "의",
        "에",
        "입니다",
        "カード",
        "请发邮件到",
        "谢谢",
        "Order",
        "refund",
        "le",
        "am",
        "de",
        "марта",
        "mars",
        "März",
        "3",
        "15",
        "2026",
        "：",
        ",",
        "\u{3000}",
        "رقم الطلب",
        "بمبلغ",
        "،",
        "\u{200F}",
        "\u{200E}",
        "\u{2067}",
        "\u{2069}",
        "ההזמנה",
        "בסך",
        "ב-",
        "หมายเลขคำสั่งซื้อ",
        "ยอดชำระ",
        "की राशि",
        "।",
        "tháng",
        "٣",
        "๓",
    ]);
    let details = prop::sample::select(vec![
        "NW-48213",
        "¥12,800",
        "１２，８００円",
        "649 €",
        "4 990 ₽",
        "R$ 649,90",
        "50%",
        "５０％",
        "15 %",
        "2026年3月3日",
        "3月3日",
        "15時30分",
        "3월 3일",
        "59,000원",
        "₩59,000",
        "№48213",
        "n° 48213",
        "maya@example.jp",
        "15:30",
        "14h30",
        "+81 3-1234-5678",
        "3 mars 2026",
        "3. März",
        "3 de marzo",
        "3 марта 2026",
        "٦٤٩ درهم",
        "649 ر.س",
        "٣ مارس ٢٠٢٦",
        "\u{200F}649 ₪",
        "3 במרץ 2026",
        "3 มีนาคม 2569",
        "๖๔๙ บาท",
        "฿1,290",
        "३ मार्च 2026",
        "₹1,299",
        "3 tháng 3 năm 2026",
        "Rp 649.000",
        "+91 98765 43210",
        "%15",
    ]);
    prop::collection::vec((words, details, prop::bool::ANY, prop::bool::ANY), 0..15).prop_map(|pieces| {
        let mut text = String::new();
        for (word, detail, word_spaced, detail_spaced) in pieces {
            for (token, spaced) in [(word, word_spaced), (detail, detail_spaced)] {
                // Two numbers written into one are one number (`2026` and
                // `4 990 ₽` would be `20264 990 ₽`): glued, digits stay apart.
                let digit = |c: char| c.is_numeric();
                let digits_meet = text.ends_with(digit) && token.starts_with(digit);
                if spaced || digits_meet {
                    text.push(' ');
                }
                text.push_str(token);
            }
        }
        text
    })
}

/// Details the corpus plants, one of each class.
fn planted() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "NW-48213",
        "¥12,800",
        "maya.okafor@example.com",
        "https://example.com/orders/48213",
        "15:30",
        "50%",
        "2026-03-03",
        "+1 503-555-0142",
        "#48213",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Whatever the mix, each detail is a piece of the text as written, and
    /// a summary that copies the text keeps every one of them.
    #[test]
    fn details_are_pieces_of_the_text_and_a_copy_keeps_them_all(text in mixed_script()) {
        // Without the directional marks, which a detail is reported without.
        let unmarked: String = text.chars().filter(|&c| !is_directional_mark(c)).collect();
        for detail in find(&text) {
            prop_assert!(!detail.is_empty());
            match &detail {
                Cow::Borrowed(piece) => {
                    let at = piece.as_ptr() as usize - text.as_ptr() as usize;
                    prop_assert!(at + piece.len() <= text.len() && &text[at..at + piece.len()] == *piece);
                }
                Cow::Owned(unmarked_piece) => prop_assert!(unmarked.contains(unmarked_piece.as_str())),
            }
        }
        let copied = audit([text.as_str()], &text);
        prop_assert_eq!(copied.dropped, Vec::<String>::new());
    }

    /// A detail glued to CJK text on both sides, as Japanese, Chinese and
    /// Korean write it, is found on its own, and a summary that writes it
    /// alone keeps it.
    #[test]
    fn a_detail_between_cjk_characters_is_found_alone(
        before in prop::sample::select(vec!["注文番号は", "请发邮件到", "주문번호", "です", "。"]),
        detail in planted(),
        after in prop::sample::select(vec!["です。", "谢谢", "의 결제", "に", "입니다", "。"]),
    ) {
        let text = format!("{before}{detail}{after}");
        prop_assert_eq!(find(&text), vec![detail]);
        prop_assert_eq!(audit([text.as_str()], detail).kept, 1);
    }
}
