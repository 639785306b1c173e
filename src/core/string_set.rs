//! A grow-only set of strings, for extractive's dedupe of repeated lines.
//!
//! std's `HashSet` would do, but its default hasher links SipHash and the
//! random-seed machinery and hashbrown's table code: about 2 KB of Wasm for a
//! set that lives for one summarizer call. Open addressing over FNV-1a is
//! enough here: the keys are the caller's own sentences, and a caller who
//! crafts collisions only slows their own summary down.

#[derive(Default)]
pub struct StringSet {
    strings: Vec<String>,
    /// Index + 1 into `strings`; 0 is an empty slot. Length: 0 or a power of
    /// two at least twice `strings.len()`.
    slots: Vec<u32>,
}

impl StringSet {
    /// Adds `text`; false when it was already there.
    pub fn insert(&mut self, text: &str) -> bool {
        if 2 * (self.strings.len() + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = fnv1a(text) as usize & mask;
        loop {
            match self.slots[at] {
                0 => break,
                taken if self.strings[taken as usize - 1] == text => return false,
                _ => at = (at + 1) & mask,
            }
        }
        self.strings.push(text.to_owned());
        self.slots[at] = self.strings.len() as u32;
        true
    }

    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(16);
        let mut slots = vec![0u32; size];
        for (index, text) in self.strings.iter().enumerate() {
            let mut at = fnv1a(text) as usize & (size - 1);
            while slots[at] != 0 {
                at = (at + 1) & (size - 1);
            }
            slots[at] = index as u32 + 1;
        }
        self.slots = slots;
    }
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_of_each_string_across_growth() {
        let mut set = StringSet::default();
        for round in 0..2 {
            for n in 0..1000 {
                assert_eq!(set.insert(&format!("line {n}")), round == 0, "line {n}, round {round}");
            }
        }
        assert!(set.insert("") && !set.insert(""));
        assert!(set.insert("中文") && !set.insert("中文") && set.insert("中"));
    }
}
