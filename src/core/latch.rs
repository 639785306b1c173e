//! Span keys and the bounded latch of spans refused as not smaller.
//!
//! A key is a 128-bit hash of the identity and the span's ids in order, so
//! the same ids in another conversation are another key (the original keyed
//! by ids alone, and `msg-3-0` exists in every conversation), and the latch
//! costs 16 bytes per span however long the ids are.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashSet, VecDeque};
use std::hash::Hasher;

/// Identity + span ids, hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpanKey(u128);

impl SpanKey {
    pub fn new<'a>(identity: &str, span_ids: impl Iterator<Item = &'a str> + Clone) -> SpanKey {
        // Two independently salted 64-bit SipHashes: collisions are ~2^-64 per pair.
        let half = |salt: u8| {
            let mut hasher = DefaultHasher::new();
            hasher.write_u8(salt);
            write_field(&mut hasher, identity);
            for id in span_ids.clone() {
                write_field(&mut hasher, id);
            }
            hasher.finish()
        };
        SpanKey(((half(0) as u128) << 64) | half(1) as u128)
    }
}

/// Length-prefixed, so ["ab","c"] and ["a","bc"] hash differently.
fn write_field(hasher: &mut DefaultHasher, text: &str) {
    hasher.write_usize(text.len());
    hasher.write(text.as_bytes());
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

    pub fn insert(&mut self, key: SpanKey) {
        if !self.keys.insert(key) {
            return;
        }
        self.order.push_back(key);
        while self.order.len() > self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.keys.remove(&oldest);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(identity: &str, ids: &[&str]) -> SpanKey {
        SpanKey::new(identity, ids.iter().copied())
    }

    #[test]
    fn keys_separate_identities_and_id_boundaries() {
        assert_eq!(key("a", &["m1", "m2"]), key("a", &["m1", "m2"]));
        assert_ne!(key("a", &["m1", "m2"]), key("b", &["m1", "m2"]));
        assert_ne!(key("a", &["ab", "c"]), key("a", &["a", "bc"]));
        assert_ne!(key("a", &["m1", "m2"]), key("a", &["m2", "m1"]));
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
}
