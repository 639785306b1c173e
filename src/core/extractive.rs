//! An offline, deterministic summarizer: it keeps the source sentences that
//! carry facts (numbers, amounts, dates, names, decisions, commitments,
//! preferences), drops filler, never writes a word of its own beyond the
//! speaker's role, and stays within a UTF-16 character budget.
//!
//! Output: one `role: sentence` line per kept sentence, in conversation order.
//! Selection is by score, ties going to the LATER sentence, so when a
//! preference changes and the budget is tight the current one survives.

use std::collections::HashSet;

use super::format::utf16_len;

pub const DEFAULT_MAX_CHARS: usize = 1200;

/// One message of the conversation to summarize.
pub struct Message<'a> {
    pub role: &'a str,
    pub content: &'a str,
}

const FILLER: &[&str] = &[
    "hi", "hello", "hey", "thanks", "thank you", "thanks a lot", "thank you so much", "ok", "okay", "sure",
    "great", "perfect", "cool", "got it", "sounds good", "no problem", "you're welcome", "you are welcome",
    "bye", "goodbye", "have a nice day", "one moment", "let me check", "hmm", "yes", "no", "alright",
];

const COMMITMENT_WORDS: &[&str] = &[
    "decid", "agree", "confirm", "will ", "promise", "commit", "approv", "schedul", "refund", "cancel",
    "deadline", "must", "going to", "plan", "order", "deliver", "ship", "address", "charge", "pay",
];

const PREFERENCE_WORDS: &[&str] =
    &["prefer", "rather", "instead", "don't want", "do not want", "would like", "favorite", "favourite", "change", "switch"];

const DATE_WORDS: &[&str] = &[
    "january", "february", "march", "april", "may ", "june", "july", "august", "september", "october",
    "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "today", "tomorrow", "yesterday", "next week",
];

/// The summary text for `messages`, at most `max_chars` UTF-16 units long.
pub fn summarize(messages: &[Message<'_>], max_chars: usize) -> String {
    let mut seen = HashSet::new();
    let mut candidates = Vec::new();
    for message in messages {
        for sentence in sentences(message.content) {
            let score = score(sentence);
            if score == 0 || !seen.insert((message.role, sentence)) {
                continue;
            }
            let line = format!("{}: {sentence}", message.role);
            let cost = utf16_len(&line);
            candidates.push(Candidate { order: candidates.len(), score, line, cost });
        }
    }
    let mut by_value: Vec<&Candidate> = candidates.iter().collect();
    by_value.sort_by(|a, b| b.score.cmp(&a.score).then(b.order.cmp(&a.order)));
    let mut kept = Vec::new();
    let mut used = 0;
    for candidate in by_value {
        // Every line after the first costs a "\n" too.
        let cost = candidate.cost + usize::from(!kept.is_empty());
        if used + cost <= max_chars {
            used += cost;
            kept.push(candidate);
        }
    }
    kept.sort_by_key(|c| c.order);
    kept.iter().map(|c| c.line.as_str()).collect::<Vec<_>>().join("\n")
}

struct Candidate {
    order: usize,
    score: u32,
    line: String,
    cost: usize,
}

/// Sentences: split after `.`, `!`, `?` (and their CJK forms) followed by
/// whitespace or the end, and at line breaks; trimmed, empty ones dropped.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next_is_space = chars.peek().map_or(true, |&(_, n)| n.is_whitespace());
        let ends = match c {
            '\n' => true,
            '。' | '！' | '？' => true,
            '.' | '!' | '?' => next_is_space,
            _ => false,
        };
        if ends {
            let end = at + c.len_utf8();
            pieces.push(&text[start..end]);
            start = end;
        }
    }
    pieces.push(&text[start..]);
    pieces.into_iter().map(str::trim).filter(|s| !s.is_empty())
}

/// 0 for filler; otherwise 1 plus a bonus for each kind of fact it carries.
fn score(sentence: &str) -> u32 {
    let lower = sentence.to_lowercase();
    let bare = lower.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
    if bare.is_empty() || FILLER.contains(&bare) {
        return 0;
    }
    let mut score = 1;
    if sentence.chars().any(|c| c.is_numeric()) {
        score += 3;
    }
    if sentence.contains(['$', '€', '£', '¥', '₹', '%', '#', '@']) {
        score += 2;
    }
    if DATE_WORDS.iter().any(|w| lower.contains(w)) {
        score += 2;
    }
    if COMMITMENT_WORDS.iter().any(|w| lower.contains(w)) {
        score += 2;
    }
    if PREFERENCE_WORDS.iter().any(|w| lower.contains(w)) {
        score += 2;
    }
    // Capitalized words after the first: names, places, products.
    let names = sentence.split_whitespace().skip(1).filter(|w| w.chars().next().is_some_and(char::is_uppercase)).count();
    score + names.min(2) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversation() -> Vec<Message<'static>> {
        vec![
            Message { role: "user", content: "Hi! Thanks. My order #4512 arrived broken on March 3." },
            Message { role: "assistant", content: "Sorry about that. I will refund $89.99 to your Visa by Friday." },
            Message { role: "user", content: "Ok. I prefer email updates instead of calls. Great!" },
        ]
    }

    #[test]
    fn keeps_facts_and_drops_filler() {
        let text = summarize(&conversation(), DEFAULT_MAX_CHARS);
        assert!(text.contains("#4512") && text.contains("$89.99") && text.contains("prefer email"), "{text}");
        assert!(!text.contains("Hi!") && !text.contains("Great!") && !text.contains("user: Ok."), "{text}");
    }

    #[test]
    fn only_source_sentences_in_order() {
        let messages = conversation();
        let text = summarize(&messages, DEFAULT_MAX_CHARS);
        for line in text.lines() {
            let (role, sentence) = line.split_once(": ").unwrap();
            assert!(messages.iter().any(|m| m.role == role && m.content.contains(sentence)), "invented: {line}");
        }
        assert!(text.find("#4512").unwrap() < text.find("$89.99").unwrap());
    }

    #[test]
    fn budget_is_respected_and_later_facts_win_ties() {
        let messages = vec![
            Message { role: "user", content: "Ship it to 12 Oak Street." },
            Message { role: "user", content: "Ship it to 48 Elm Road." },
        ];
        let one_line = utf16_len("user: Ship it to 48 Elm Road.");
        assert_eq!(summarize(&messages, one_line), "user: Ship it to 48 Elm Road.");
        for budget in [0, 5, 40, 200] {
            assert!(utf16_len(&summarize(&conversation(), budget)) <= budget);
        }
    }

    #[test]
    fn deterministic_and_unicode_safe() {
        let messages = vec![Message { role: "user", content: "注文番号は123です。配送先を変更したい！😀 Emoji 42 ok." }];
        let first = summarize(&messages, 100);
        assert_eq!(first, summarize(&messages, 100));
        assert!(first.contains("注文番号は123です。"), "{first}");
    }
}
