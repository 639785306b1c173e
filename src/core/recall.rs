//! What the stage knows about one recall: the facts read from each entry,
//! their ids, the summary/raw partition, and the seam.

use std::collections::HashSet;

/// The fields of one entry the decisions need; nothing else is read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntryFacts {
    /// `source.turn`, when present.
    pub turn: Option<f64>,
    /// `updatedAt`, when present.
    pub updated_at: Option<f64>,
    /// UTF-16 length of `value.content` (0 when null or absent).
    pub content_units: usize,
    /// Present when `metadata.summarizes` is a coverage object.
    pub summary: Option<SummaryFacts>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryFacts {
    /// `coverage.toTurn`, or 0 when it is missing or not a finite number.
    pub to_turn: f64,
    /// How many string ids its `coveredIds` holds (non-strings cover nothing).
    pub covered_count: usize,
}

/// Many JS strings sent as one (e.g. entry ids followed by every summary's
/// covered ids): one crossing, and Rust slices it without further copies.
#[derive(Clone, Debug, Default)]
pub struct StringTable {
    text: String,
    /// Byte offset where each id ends.
    ends: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StringTableError;

impl StringTable {
    /// Splits `joined` by the UTF-16 lengths JS reported for each string.
    pub fn from_utf16_lengths(joined: String, lengths: &[u32]) -> Result<StringTable, StringTableError> {
        let mut ends = Vec::with_capacity(lengths.len());
        let mut chars = joined.char_indices().peekable();
        let mut byte = 0;
        for &units in lengths {
            let mut remaining = units as usize;
            while remaining > 0 {
                let (at, c) = chars.next().ok_or(StringTableError)?;
                remaining = remaining.checked_sub(c.len_utf16()).ok_or(StringTableError)?;
                byte = at + c.len_utf8();
            }
            ends.push(byte);
        }
        if chars.next().is_some() {
            return Err(StringTableError);
        }
        Ok(StringTable { text: joined, ends })
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, index: usize) -> &str {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        // Ends are char boundaries by construction; `get` keeps the panic path out.
        self.text.get(start..self.ends[index]).unwrap_or_default()
    }

    #[cfg(test)]
    pub fn from_strs(ids: &[&str]) -> StringTable {
        let lengths: Vec<u32> = ids.iter().map(|id| id.encode_utf16().count() as u32).collect();
        StringTable::from_utf16_lengths(ids.concat(), &lengths).expect("consistent test ids")
    }
}

/// Recall split into its parts (indices into the loaded snapshot).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Partition {
    /// Summary entries, stably sorted by `toTurn`.
    pub summaries: Vec<usize>,
    /// Raw entries no summary covers, in order.
    pub raw: Vec<usize>,
    /// Raw entries a summary covers, in order: excluded from recall.
    pub excluded: Vec<usize>,
}

/// Needs ids only when some summary covers something; `None` is fine otherwise.
pub fn needs_ids_for_partition(facts: &[EntryFacts]) -> bool {
    facts.iter().any(|f| f.summary.as_ref().is_some_and(|s| s.covered_count > 0))
}

pub fn partition(facts: &[EntryFacts], ids: Option<&StringTable>) -> Result<Partition, StringTableError> {
    let mut covered: HashSet<&str> = HashSet::new();
    if needs_ids_for_partition(facts) {
        let ids = ids.ok_or(StringTableError)?;
        let covered_total: usize = facts.iter().filter_map(|f| f.summary.as_ref()).map(|s| s.covered_count).sum();
        if ids.len() != facts.len() + covered_total {
            return Err(StringTableError);
        }
        covered.extend((facts.len()..ids.len()).map(|i| ids.get(i)));
    }
    let mut part = Partition::default();
    for (index, fact) in facts.iter().enumerate() {
        if fact.summary.is_some() {
            part.summaries.push(index);
        } else if !covered.is_empty() && covered.contains(ids.map(|t| t.get(index)).unwrap_or_default()) {
            part.excluded.push(index);
        } else {
            part.raw.push(index);
        }
    }
    // Stable insertion sort: equal toTurn keeps load order. Recall holds a
    // handful of summaries, and this keeps a generic sort out of the Wasm.
    for sorted in 1..part.summaries.len() {
        let mut at = sorted;
        while at > 0 && to_turn(&facts[part.summaries[at - 1]]) > to_turn(&facts[part.summaries[at]]) {
            part.summaries.swap(at - 1, at);
            at -= 1;
        }
    }
    Ok(part)
}

pub fn to_turn(fact: &EntryFacts) -> f64 {
    fact.summary.as_ref().map_or(0.0, |s| s.to_turn)
}

/// Where the verbatim tail starts in `raw`: `preserve_recent` from the end,
/// moved left so no turn is split across the seam.
pub fn seam(facts: &[EntryFacts], raw: &[usize], preserve_recent: usize) -> usize {
    let mut split_at = raw.len().saturating_sub(preserve_recent);
    if split_at == 0 {
        return 0;
    }
    if let Some(boundary_turn) = raw.get(split_at).and_then(|&i| facts[i].turn) {
        while split_at > 0 && facts[raw[split_at - 1]].turn == Some(boundary_turn) {
            split_at -= 1;
        }
    }
    split_at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_turns(turns: &[Option<f64>]) -> Vec<EntryFacts> {
        turns.iter().map(|&turn| EntryFacts { turn, ..EntryFacts::default() }).collect()
    }

    #[test]
    fn id_table_splits_by_utf16_lengths() {
        let table = StringTable::from_strs(&["a", "😀b", "", "中"]);
        assert_eq!((0..4).map(|i| table.get(i)).collect::<Vec<_>>(), ["a", "😀b", "", "中"]);
        assert!(StringTable::from_utf16_lengths("ab".into(), &[1]).is_err(), "left-over text");
        assert!(StringTable::from_utf16_lengths("😀".into(), &[1]).is_err(), "split surrogate pair");
        assert!(StringTable::from_utf16_lengths("a".into(), &[2]).is_err(), "too short");
    }

    #[test]
    fn seam_rounds_outward_to_a_whole_turn() {
        let facts = raw_turns(&[Some(1.0), Some(1.0), Some(2.0), Some(2.0), Some(2.0), Some(3.0)]);
        let raw: Vec<usize> = (0..facts.len()).collect();
        assert_eq!(seam(&facts, &raw, 2), 2, "cut inside turn 2 moves before it");
        assert_eq!(seam(&facts, &raw, 1), 5);
        assert_eq!(seam(&facts, &raw, 0), 6, "no boundary entry: everything is span");
        assert_eq!(seam(&facts, &raw, 6), 0);
        assert_eq!(seam(&facts, &raw, 9), 0);
        let untimed = raw_turns(&[None, None, None]);
        assert_eq!(seam(&untimed, &[0, 1, 2], 1), 2, "undefined turns never move the seam");
    }

    #[test]
    fn partition_excludes_covered_raw_entries_only() {
        let mut facts = raw_turns(&[Some(1.0), Some(1.0), None, Some(2.0)]);
        facts[2].summary = Some(SummaryFacts { to_turn: 1.0, covered_count: 3 });
        // The summary also names itself and an id nobody has: both are harmless.
        let ids = StringTable::from_strs(&["m0", "m1", "s", "m3", "m0", "s", "ghost"]);
        let part = partition(&facts, Some(&ids)).unwrap();
        assert_eq!(part.summaries, [2]);
        assert_eq!(part.excluded, [0]);
        assert_eq!(part.raw, [1, 3]);
    }

    #[test]
    fn summaries_sort_stably_by_to_turn() {
        let mut facts = raw_turns(&[None, None, None]);
        facts[0].summary = Some(SummaryFacts { to_turn: 9.0, covered_count: 0 });
        facts[1].summary = Some(SummaryFacts { to_turn: 3.0, covered_count: 0 });
        facts[2].summary = Some(SummaryFacts { to_turn: 9.0, covered_count: 0 });
        assert_eq!(partition(&facts, None).unwrap().summaries, [1, 0, 2]);
    }
}
