//! What the stage knows about one recall: the facts read from each entry
//! (ids stay in JS; a summary's coverage arrives as a flag on each entry it
//! names), the summary/raw partition, and the seam.

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
    /// Another summary in this recall names this entry's id in
    /// `coveredIds`. (The reader matches ids where they live, so ids never
    /// cross into Wasm on a coverage turn; only summaries' string ids can
    /// cover.)
    pub covered: bool,
    /// The entry is a fleet's claim on a span (`metadata.summaryClaim`):
    /// bookkeeping of the store, never recall.
    pub claim: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryFacts {
    /// `coverage.toTurn`, or 0 when it is missing or not a finite number.
    pub to_turn: f64,
    /// `coverage.fromTurn`, or `to_turn` when it is missing or not a finite number.
    pub from_turn: f64,
}

/// Many JS strings sent as one (the span's roles and marker-bearing
/// contents): one crossing, and Rust slices it without further copies.
#[derive(Clone, Debug, Default)]
pub struct StringTable {
    text: String,
    /// Byte offset where each string ends.
    ends: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StringTableError;

impl StringTable {
    /// Splits `joined` by the UTF-16 lengths JS reported for each string.
    pub fn from_utf16_lengths(joined: String, lengths: &[u32]) -> Result<StringTable, StringTableError> {
        let mut chars = joined.char_indices();
        let mut ends = Vec::with_capacity(lengths.len());
        for &units in lengths {
            let mut remaining = units as usize;
            while remaining > 0 {
                let (_, char) = chars.next().ok_or(StringTableError)?;
                remaining = remaining.checked_sub(char.len_utf16()).ok_or(StringTableError)?;
            }
            ends.push(chars.offset());
        }
        if chars.next().is_some() {
            return Err(StringTableError);
        }
        Ok(StringTable { text: joined, ends })
    }

    pub fn get(&self, index: usize) -> &str {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        // Ends are char boundaries by construction; `get` keeps the panic path out.
        self.text.get(start..self.ends[index]).unwrap_or_default()
    }

    #[cfg(test)]
    pub fn from_strs(strings: &[&str]) -> StringTable {
        let lengths: Vec<u32> = strings.iter().map(|s| s.encode_utf16().count() as u32).collect();
        StringTable::from_utf16_lengths(strings.concat(), &lengths).expect("consistent test strings")
    }
}

/// Recall split into its parts (indices into the loaded snapshot).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Partition {
    /// Summary entries no other summary names, stably sorted by `toTurn`.
    pub summaries: Vec<usize>,
    /// Raw entries no summary covers, in order.
    pub raw: Vec<usize>,
    /// Entries a summary covers, in order: excluded from recall. A summary
    /// that another summary names (a rolling fold took it in) is one of them;
    /// its own coverage still excludes what it names.
    pub excluded: Vec<usize>,
    /// Fleet claims, in order: left out of recall too, whether or not the
    /// summary their leader wrote names them.
    pub claims: Vec<usize>,
}

impl Partition {
    /// Everything left out of recall, in `droppedIds` order.
    pub fn left_out(&self) -> Vec<usize> {
        self.excluded.iter().chain(&self.claims).copied().collect()
    }
}

pub fn partition(facts: &[EntryFacts]) -> Partition {
    // Raw entries are most of recall: one allocation instead of regrowing.
    let mut part = Partition { raw: Vec::with_capacity(facts.len()), ..Partition::default() };
    for (index, fact) in facts.iter().enumerate() {
        if fact.claim && fact.summary.is_none() {
            part.claims.push(index);
        } else if fact.covered {
            part.excluded.push(index);
        } else if fact.summary.is_some() {
            part.summaries.push(index);
        } else {
            part.raw.push(index);
        }
    }
    // Stable insertion sort by toTurn: equal toTurns keep load order, and
    // `>` compares as JS's `a - b` does (-0 equals 0). Summaries arrive in
    // turn order from a store, where this is one pass. Measured on this
    // module: std's `sort_by` adds 3,256 gzipped bytes (71,658 -> 74,914)
    // and `sort_unstable_by` with a load-order tiebreak 2,641, against a
    // 75,000-byte budget.
    for sorted in 1..part.summaries.len() {
        let mut at = sorted;
        while at > 0 && to_turn(&facts[part.summaries[at - 1]]) > to_turn(&facts[part.summaries[at]]) {
            part.summaries.swap(at - 1, at);
            at -= 1;
        }
    }
    part
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
    fn string_table_splits_by_utf16_lengths() {
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
    fn partition_excludes_covered_entries_and_summaries_another_names() {
        let mut facts = raw_turns(&[Some(1.0), Some(1.0), None, Some(2.0), None]);
        facts[0].covered = true;
        facts[2].summary = Some(SummaryFacts { to_turn: 1.0, from_turn: 1.0 });
        facts[4].summary = Some(SummaryFacts { to_turn: 2.0, from_turn: 1.0 });
        // Summary 2 is named by summary 4 (a rolling fold took it in).
        facts[2].covered = true;
        let part = partition(&facts);
        assert_eq!(part.summaries, [4]);
        assert_eq!(part.excluded, [0, 2]);
        assert_eq!(part.raw, [1, 3]);
        assert!(part.claims.is_empty());
    }

    #[test]
    fn claims_are_left_out_and_never_summaries_or_raw() {
        let mut facts = raw_turns(&[Some(1.0), None, Some(2.0), None]);
        facts[1].claim = true;
        facts[3].claim = true;
        // A summary names claim 3 (its leader folded that span): still a claim.
        facts[3].covered = true;
        facts[0].covered = true;
        let part = partition(&facts);
        assert_eq!(part.raw, [2]);
        assert!(part.summaries.is_empty());
        assert_eq!(part.claims, [1, 3]);
        assert_eq!(part.excluded, [0]);
        assert_eq!(part.left_out(), [0, 1, 3]);
    }

    #[test]
    fn summaries_sort_stably_by_to_turn() {
        let mut facts = raw_turns(&[None, None, None]);
        facts[0].summary = Some(SummaryFacts { to_turn: 9.0, from_turn: 1.0 });
        facts[1].summary = Some(SummaryFacts { to_turn: 3.0, from_turn: 1.0 });
        facts[2].summary = Some(SummaryFacts { to_turn: 9.0, from_turn: 4.0 });
        assert_eq!(partition(&facts).summaries, [1, 0, 2]);
    }
}
