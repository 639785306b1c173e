//! Span keys and the bounded latch of spans refused as not smaller.
//!
//! A key is a 128-bit SipHash-1-3 of the span's full key text (the identity
//! and the span's ids in order, `span_key_text`), under a seed drawn once per
//! process. The
//! same ids in another conversation are another key (the original keyed by
//! ids alone, and `msg-3-0` exists in every conversation), and the latch
//! costs 16 bytes per span however long the ids are. Because the seed is
//! secret and random, nobody can search for two spans with one key: a
//! chance match would cost a verbatim turn, and it never hands one
//! conversation another's summary (single flight compares full keys).

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hasher;

use siphasher::sip128::{Hasher128, SipHasher13};

/// Writes a key one part at a time: each part as its length and its text,
/// so no two lists of parts write the same key. The one key writer: the
/// identity's key and a span's are written with it, and a key is only ever
/// extended by parts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyText(String);

impl KeyText {
    pub fn part(mut self, part: &str) -> KeyText {
        self.0.push_str(&part.len().to_string());
        self.0.push(':');
        self.0.push_str(part);
        self
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// A span's full key: the identity's key (its parts, `identity::Parts::key`)
/// and then the span's ids, one part each, so two different spans are two
/// different texts. Single flight compares these texts; the latch keeps
/// their hashes.
pub fn span_key_text<'a>(identity: KeyText, ids: impl IntoIterator<Item = &'a str>) -> String {
    ids.into_iter().fold(identity, KeyText::part).into_string()
}

/// A span's full key text, hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpanKey(u128);

impl SpanKey {
    pub fn of(text: &str, seed: [u64; 2]) -> SpanKey {
        let mut hasher = SipHasher13::new_with_keys(seed[0], seed[1]);
        hasher.write(text.as_bytes());
        SpanKey(hasher.finish128().as_u128())
    }
}

/// Remembers at most `capacity` keys; past that the oldest is forgotten
/// (forgetting costs at most one repeated call for that span).
pub struct Latch {
    keys: HashSet<SpanKey>,
    order: VecDeque<SpanKey>,
    capacity: usize,
}

impl Latch {
    pub const DEFAULT_CAPACITY: usize = 4096;

    pub fn new(capacity: usize) -> Latch {
        Latch { keys: HashSet::new(), order: VecDeque::new(), capacity: capacity.max(1) }
    }

    pub fn contains(&self, key: SpanKey) -> bool {
        self.keys.contains(&key)
    }

    /// Latches the span with `key`.
    pub fn insert(&mut self, key: SpanKey) {
        if !self.keys.insert(key) {
            return;
        }
        self.order.push_back(key);
        while self.order.len() > self.capacity {
            let Some(oldest) = self.order.pop_front() else { break };
            self.keys.remove(&oldest);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.order.len()
    }
}

/// Every stage's latch, by stage id, from the stage's first refusal on: a
/// stage that never refused anything owns none.
#[derive(Default)]
pub struct Latches(HashMap<u64, Latch>);

impl Latches {
    /// Whether the stage latched `key`. The key is made only for a stage
    /// with a latch: making one draws the seed (`Memory::new` says why that waits).
    pub fn contains(&self, stage_id: u64, key: impl FnOnce() -> SpanKey) -> bool {
        self.0.get(&stage_id).is_some_and(|latch| latch.contains(key()))
    }

    /// Latches `key` for the stage; true when this made the stage's latch.
    pub fn insert(&mut self, stage_id: u64, key: SpanKey) -> bool {
        let created = !self.0.contains_key(&stage_id);
        self.0.entry(stage_id).or_insert_with(|| Latch::new(Latch::DEFAULT_CAPACITY)).insert(key);
        created
    }

    /// Frees a collected stage's latch.
    pub fn forget(&mut self, stage_id: u64) {
        self.0.remove(&stage_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: [u64; 2] = [7, 11];

    fn key(identity: &str, ids: &[&str]) -> SpanKey {
        SpanKey::of(&span_key_text(KeyText::default().part(identity), ids.iter().copied()), SEED)
    }

    #[test]
    fn keys_separate_identities_and_id_boundaries() {
        assert_eq!(key("a", &["m1", "m2"]), key("a", &["m1", "m2"]));
        assert_ne!(key("a", &["m1", "m2"]), key("b", &["m1", "m2"]));
        assert_ne!(key("a", &["ab", "c"]), key("a", &["a", "bc"]));
        assert_ne!(key("a", &["m1", "m2"]), key("a", &["m2", "m1"]));
        assert_ne!(key("a", &["m1"]), key("am", &["1"]), "the identity is one of the delimited parts");
        assert_ne!(key("a", &["abcdefgh"]), key("a", &["abcdefgi"]));
    }

    #[test]
    fn the_seed_changes_every_key() {
        assert_ne!(SpanKey::of("1:a2:m1", SEED), SpanKey::of("1:a2:m1", [7, 12]));
    }

    #[test]
    fn many_similar_spans_never_collide() {
        let mut seen = HashSet::new();
        for conversation in 0..50 {
            for end in 1..200 {
                let ids: Vec<String> = (0..end).map(|i| format!("msg-{i}-0")).collect();
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                assert!(seen.insert(key(&format!("c{conversation}"), &refs)));
            }
        }
    }

    #[test]
    fn latch_is_bounded_and_forgets_the_oldest() {
        let mut latch = Latch::new(3);
        for i in 0..5 {
            latch.insert(key("x", &[&i.to_string()]));
        }
        assert_eq!(latch.len(), 3);
        assert!(!latch.contains(key("x", &["0"])));
        assert!(!latch.contains(key("x", &["1"])));
        assert!(latch.contains(key("x", &["4"])));
        latch.insert(key("x", &["4"]));
        assert_eq!(latch.len(), 3, "re-inserting is a no-op");
    }

    #[test]
    fn each_stage_has_its_own_latch_made_at_its_first_refusal() {
        let mut latches = Latches::default();
        let unmade = || -> SpanKey { panic!("a stage without a latch makes no key") };
        assert!(!latches.contains(1, unmade));
        assert!(latches.insert(1, key("a", &["m1"])));
        assert!(!latches.insert(1, key("a", &["m2"])), "the stage's latch exists already");
        assert!(latches.contains(1, || key("a", &["m1"])));
        assert!(!latches.contains(2, unmade), "another stage's latch is not this one's");
        latches.forget(1);
        assert!(!latches.contains(1, unmade));
    }
}
