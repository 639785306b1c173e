//! Span keys and the bounded latch of spans refused as not smaller.
//!
//! A key is a 128-bit SipHash-1-3 of the span's full key text (the identity
//! and the span's ids in order, written by the bindings so that different
//! spans are different texts), under a seed drawn once per process. The
//! same ids in another conversation are another key (the original keyed by
//! ids alone, and `msg-3-0` exists in every conversation), and the latch
//! costs 16 bytes per span however long the ids are. Because the seed is
//! secret and random, nobody can search for two spans with one key: a
//! chance match would cost a verbatim turn, and it never hands one
//! conversation another's summary (single flight compares full keys).

use std::collections::{HashSet, VecDeque};
use std::hash::Hasher;

use siphasher::sip128::{Hasher128, SipHasher13};

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
///
/// It also counts latched spans by length (modulo 256). A span's key costs a
/// read of every id in it, and a span whose length has no count cannot be
/// latched, so the stage asks `may_hold_span_of` first. Lengths that share a
/// count only cost that read.
pub struct Latch {
    keys: HashSet<SpanKey>,
    order: VecDeque<(SpanKey, usize)>,
    by_length: [u16; 256],
    capacity: usize,
}

impl Latch {
    pub const DEFAULT_CAPACITY: usize = 4096;

    pub fn new(capacity: usize) -> Latch {
        Latch {
            keys: HashSet::new(),
            order: VecDeque::new(),
            by_length: [0; 256],
            // A `u16` counts the spans of a length.
            capacity: capacity.clamp(1, usize::from(u16::MAX)),
        }
    }

    /// False when no latched span has `entries` entries.
    pub fn may_hold_span_of(&self, entries: usize) -> bool {
        self.by_length[entries % 256] > 0
    }

    pub fn contains(&self, key: SpanKey) -> bool {
        self.keys.contains(&key)
    }

    /// Latches the span with `key`, which has `entries` entries.
    pub fn insert(&mut self, key: SpanKey, entries: usize) {
        if !self.keys.insert(key) {
            return;
        }
        self.order.push_back((key, entries));
        self.by_length[entries % 256] += 1;
        while self.order.len() > self.capacity {
            let Some((oldest, entries)) = self.order.pop_front() else { break };
            self.keys.remove(&oldest);
            self.by_length[entries % 256] -= 1;
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.order.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: [u64; 2] = [7, 11];

    /// The key text as the bindings write it: a JSON array of the parts.
    fn key(identity: &str, ids: &[&str]) -> SpanKey {
        let parts: Vec<String> =
            std::iter::once(identity).chain(ids.iter().copied()).map(|p| format!("{p:?}")).collect();
        SpanKey::of(&format!("[{}]", parts.join(",")), SEED)
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
        assert_ne!(SpanKey::of("[\"a\",\"m1\"]", SEED), SpanKey::of("[\"a\",\"m1\"]", [7, 12]));
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
            latch.insert(key("x", &[&i.to_string()]), i);
        }
        assert_eq!(latch.len(), 3);
        assert!(!latch.contains(key("x", &["0"])));
        assert!(!latch.contains(key("x", &["1"])));
        assert!(latch.contains(key("x", &["4"])));
        latch.insert(key("x", &["4"]), 4);
        assert_eq!(latch.len(), 3, "re-inserting is a no-op");
        let lengths: Vec<bool> = (0..6).map(|entries| latch.may_hold_span_of(entries)).collect();
        assert_eq!(lengths, [false, false, true, true, true, false], "forgotten spans' lengths are forgotten too");
        latch.insert(key("y", &["a", "b"]), 2);
        latch.insert(key("y", &["c", "d"]), 2);
        assert!(
            !latch.may_hold_span_of(3) && latch.may_hold_span_of(2),
            "the span of 3 was forgotten; two spans of 2 came"
        );
        latch.insert(key("z", &["e"]), 5);
        assert!(
            latch.may_hold_span_of(2) && !latch.may_hold_span_of(4),
            "the span of 4 was forgotten, those of 2 stay"
        );
        assert!(latch.may_hold_span_of(258), "lengths share a count modulo 256: a possible match, never a missed one");
    }
}
