//! What the stage knows about one recall: the facts read from each entry,
//! which entries another summary names, the summary/raw partition, and the
//! seam.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use super::events::InvalidSpot;
use super::js_number::js_number_to_string;

/// The most entries one visit reads: a larger recall is served verbatim as
/// invalid input before anything is copied. Each entry read costs Wasm memory
/// for its facts and id, and a memory pipeline loads a window of recent turns,
/// far below this.
pub const MAX_ENTRIES: usize = 100_000;

/// The most UTF-16 units of content a visit folds: a summarizer's transcript
/// is copied into Wasm whole, and no model takes this much (about 4 million
/// tokens). A larger recall is served verbatim as invalid input.
pub const MAX_CONTENT_UNITS: usize = 16 * 1024 * 1024;

/// A recall too large for one visit to fold safely: served verbatim, before
/// its contents are copied.
pub enum TooLarge {
    /// Its `length` says more than [`MAX_ENTRIES`].
    Length(f64),
    /// Its iterator yields more than [`MAX_ENTRIES`] (it may never end).
    Endless,
    /// Its entries' contents hold more than [`MAX_CONTENT_UNITS`] in all.
    Content { entries: usize, units: usize },
}

impl TooLarge {
    /// Too large by its entries' contents, if it is.
    pub fn of_contents(facts: &[EntryFacts]) -> Option<TooLarge> {
        let units = facts.iter().fold(0usize, |sum, fact| sum.saturating_add(fact.content_units));
        (units > MAX_CONTENT_UNITS).then_some(TooLarge::Content { entries: facts.len(), units })
    }

    pub fn spot(&self) -> InvalidSpot {
        let entries = |found| InvalidSpot::too_large(found, "entries", MAX_ENTRIES);
        match *self {
            TooLarge::Length(length) => entries(format!("an array of {} entries", js_number_to_string(length))),
            TooLarge::Endless => entries(format!("an array whose iterator yields more than {MAX_ENTRIES} entries")),
            TooLarge::Content { entries, units } => InvalidSpot::too_large(
                format!("{entries} entries holding {units} chars of content"),
                "chars of content",
                MAX_CONTENT_UNITS,
            ),
        }
    }
}

/// What one visit copies of ids into Wasm, each entry's and each one a
/// summary's coverage names, is bounded in all: a store holding summaries
/// that name millions of long ids would otherwise exhaust the instance's
/// memory, and so fail every other conversation's visit with it.
pub struct IdBudget {
    /// How many more ids the recall's coverages may name.
    covered_ids: usize,
    /// How many more UTF-16 units of id text may be copied.
    units: usize,
}

/// Which bound of [`IdBudget`] an entry broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverBudget {
    /// The recall's coverages name more ids, together, than a recall holds entries.
    CoveredIds,
    /// The ids and covered ids hold more text, together, than a recall's contents may.
    IdText,
}

impl IdBudget {
    pub const fn new() -> IdBudget {
        IdBudget { covered_ids: MAX_ENTRIES, units: MAX_CONTENT_UNITS }
    }

    /// How many more ids the recall's coverages may name.
    pub fn covered_ids_left(&self) -> usize {
        self.covered_ids
    }

    /// Takes `count` ids a coverage names out of the budget.
    pub fn name_covered_ids(&mut self, count: usize) -> Result<(), OverBudget> {
        self.covered_ids = self.covered_ids.checked_sub(count).ok_or(OverBudget::CoveredIds)?;
        Ok(())
    }

    /// Takes an id of `units` UTF-16 units out of the budget.
    pub fn copy_id_text(&mut self, units: usize) -> Result<(), OverBudget> {
        self.units = self.units.checked_sub(units).ok_or(OverBudget::IdText)?;
        Ok(())
    }
}

impl OverBudget {
    /// The invalid input, at entry `index`.
    pub fn at(self, index: usize) -> InvalidSpot {
        match self {
            OverBudget::CoveredIds => InvalidSpot::entry(
                index,
                "metadata.summarizes.coveredIds",
                format!("an array that brings the ids the recall's summaries name past {MAX_ENTRIES}"),
                &format!("at most {MAX_ENTRIES} ids named by the recall's summaries together"),
            ),
            OverBudget::IdText => InvalidSpot::too_large(
                format!("entries whose ids and covered ids hold more than {MAX_CONTENT_UNITS} chars"),
                "chars of ids",
                MAX_CONTENT_UNITS,
            ),
        }
    }
}

/// The fields of one entry the decisions need; nothing else is read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntryFacts {
    /// `source.turn`, when present.
    pub turn: Option<f64>,
    /// `updatedAt`, when present.
    pub updated_at: Option<f64>,
    /// UTF-16 length of `value.content` (0 when null or absent).
    pub content_units: usize,
    /// Tokens in `value.content`, when the stage counts tokens (else 0).
    pub tokens: f64,
    /// Present when `metadata.summarizes` is a coverage object.
    pub summary: Option<SummaryFacts>,
    /// Another summary in this recall names this entry's id in
    /// `coveredIds` (`covered_by_another`).
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

/// Which entries a summary with another id names (SPEC §4 step 2): `ids`
/// holds every entry's id, `named` each summary's index and the ids its
/// `coveredIds` lists. A summary naming its own id covers nothing by that,
/// but another summary naming the same id still does.
///
/// Every covered entry must be stood for by a summary that stays in recall,
/// directly or through the summaries it took in. Summaries that cover one
/// another (`a` names `b`, `b` names `a`), which no stored history makes,
/// would each hide the other, and what they hold would leave recall: then
/// the answer is the first entry only they cover.
pub fn covered_by_another(ids: &[String], named: &[(usize, Vec<String>)]) -> Result<Vec<bool>, CoverageCycle> {
    // Each named id: whether a summary with another id names it.
    let mut by_another: HashMap<&str, bool> = HashMap::new();
    for (owner, list) in named {
        for id in list {
            *by_another.entry(id).or_default() |= ids[*owner] != *id;
        }
    }
    let covered: Vec<bool> = ids.iter().map(|id| by_another.get(id.as_str()).copied().unwrap_or(false)).collect();
    // What the summaries left in recall stand for: what they name, and
    // through each summary they name, what that one names.
    let mut lists_by_owner_id: HashMap<&str, Vec<usize>> = HashMap::new();
    for (at, (owner, _)) in named.iter().enumerate() {
        lists_by_owner_id.entry(ids[*owner].as_str()).or_default().push(at);
    }
    let mut pending: Vec<usize> = (0..named.len()).filter(|&at| !covered[named[at].0]).collect();
    let mut reached: HashSet<&str> = HashSet::new();
    while let Some(at) = pending.pop() {
        let (owner, list) = &named[at];
        for id in list {
            if *id != ids[*owner] && reached.insert(id) {
                pending.extend(lists_by_owner_id.get(id.as_str()).into_iter().flatten());
            }
        }
    }
    let stood_for = |index: usize| !covered[index] || reached.contains(ids[index].as_str());
    match (0..ids.len()).find(|&index| !stood_for(index)) {
        None => Ok(covered),
        Some(index) => {
            let summaries = named.iter().map(|(owner, _)| *owner).filter(|&owner| !stood_for(owner)).collect();
            Err(CoverageCycle { index, summaries })
        }
    }
}

/// Entries that only summaries covering one another stand for
/// (`covered_by_another`): the first of them, and those summaries.
#[derive(Clone, Debug, PartialEq)]
pub struct CoverageCycle {
    pub index: usize,
    pub summaries: Vec<usize>,
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
    // Equal toTurns keep load order (-0 equals 0, as in JS's `a - b`), as a
    // stable sort keeps them: the index breaks the tie.
    part.summaries.sort_unstable_by(|&a, &b| {
        to_turn(&facts[a]).partial_cmp(&to_turn(&facts[b])).unwrap_or(Ordering::Equal).then(a.cmp(&b))
    });
    part
}

pub fn to_turn(fact: &EntryFacts) -> f64 {
    fact.summary.as_ref().map_or(0.0, |s| s.to_turn)
}

/// Where, in `raw`, the turn of the entry just before `end` starts (`end`
/// is at least 1): a turn's entries are neighbours, and an entry without a
/// turn is a turn of its own.
pub fn turn_start(facts: &[EntryFacts], raw: &[usize], end: usize) -> usize {
    match facts[raw[end - 1]].turn {
        Some(turn) => raw[..end].iter().rposition(|&i| facts[i].turn != Some(turn)).map_or(0, |at| at + 1),
        None => end - 1,
    }
}

/// Where the verbatim tail starts in `raw`: `preserve_recent` from the end,
/// moved left so no turn is split across the seam.
pub fn seam(facts: &[EntryFacts], raw: &[usize], preserve_recent: usize) -> usize {
    let split_at = raw.len().saturating_sub(preserve_recent);
    if split_at == 0 || split_at == raw.len() {
        return split_at;
    }
    turn_start(facts, raw, split_at + 1)
}

/// Where the verbatim tail starts in `raw` with `preserveRecentTokens`: the
/// newest whole turns, until they hold at least `min_tokens` (no more turns
/// than that needs).
pub fn seam_by_tokens(facts: &[EntryFacts], raw: &[usize], min_tokens: f64) -> usize {
    let mut split_at = raw.len();
    let mut kept = 0.0;
    while split_at > 0 && kept < min_tokens {
        let start = turn_start(facts, raw, split_at);
        kept += raw[start..split_at].iter().map(|&i| facts[i].tokens).sum::<f64>();
        split_at = start;
    }
    split_at
}

/// The oldest `updatedAt` of the loaded entries, when any is dated.
pub fn oldest_dated(facts: &[EntryFacts]) -> Option<f64> {
    let oldest = facts.iter().filter_map(|fact| fact.updated_at).fold(f64::INFINITY, f64::min);
    oldest.is_finite().then_some(oldest)
}

/// When the fleet's claim on a span is dated (`createdAt`/`updatedAt`):
/// just before the oldest loaded entry (`oldest_dated`), so a recency
/// window that starts at the span never loads the claim in place of one of
/// its messages; when it was claimed, if no loaded entry is dated.
pub fn claim_dated(oldest_dated: Option<f64>, claimed_at: f64) -> f64 {
    oldest_dated.map_or(claimed_at, |oldest| oldest - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recall_is_too_large_past_its_contents_bound_and_names_what_it_holds() {
        let holding = |units: &[usize]| -> Vec<EntryFacts> {
            units.iter().map(|&content_units| EntryFacts { content_units, ..EntryFacts::default() }).collect()
        };
        assert!(TooLarge::of_contents(&holding(&[MAX_CONTENT_UNITS / 2, MAX_CONTENT_UNITS / 2])).is_none());
        let over = TooLarge::of_contents(&holding(&[MAX_CONTENT_UNITS, 1])).expect("one unit past the bound");
        assert_eq!(over.spot().found, format!("2 entries holding {} chars of content", MAX_CONTENT_UNITS + 1));
        assert_eq!(TooLarge::Length(1e6).spot().found, "an array of 1000000 entries");
    }

    #[test]
    fn the_ids_one_visit_copies_are_bounded_in_all() {
        let mut budget = IdBudget::new();
        assert_eq!(budget.name_covered_ids(MAX_ENTRIES - 1), Ok(()));
        assert_eq!(budget.covered_ids_left(), 1);
        assert_eq!(budget.name_covered_ids(2), Err(OverBudget::CoveredIds));
        assert_eq!(budget.copy_id_text(MAX_CONTENT_UNITS), Ok(()));
        assert_eq!(budget.copy_id_text(1), Err(OverBudget::IdText));
        let spot = OverBudget::CoveredIds.at(7);
        assert_eq!((spot.index, spot.field.as_str()), (Some(7), "metadata.summarizes.coveredIds"));
        assert_eq!(OverBudget::IdText.at(7).index, None, "the whole recall is too large");
    }

    #[test]
    fn a_claim_is_dated_just_before_the_oldest_dated_entry() {
        let dated = |times: &[Option<f64>]| -> Vec<EntryFacts> {
            times.iter().map(|&updated_at| EntryFacts { updated_at, ..EntryFacts::default() }).collect()
        };
        assert_eq!(claim_dated(oldest_dated(&dated(&[Some(50.0), None, Some(20.0), Some(90.0)])), 1_000.0), 19.0);
        assert_eq!(
            claim_dated(oldest_dated(&dated(&[None, None])), 1_000.0),
            1_000.0,
            "nothing dated: when it was claimed"
        );
        assert_eq!(claim_dated(oldest_dated(&[]), 7.0), 7.0);
    }

    fn raw_turns(turns: &[Option<f64>]) -> Vec<EntryFacts> {
        turns.iter().map(|&turn| EntryFacts { turn, ..EntryFacts::default() }).collect()
    }

    #[test]
    fn covered_means_named_by_a_summary_with_another_id() {
        let ids: Vec<String> = ["a", "b", "s1", "s2", "c"].map(String::from).to_vec();
        let named = vec![
            // s1 names a, itself and an id recall does not hold.
            (2, vec!["a".to_owned(), "s1".to_owned(), "zz".to_owned()]),
            // s2 names s1 (a rolled fold took it in) and b twice.
            (3, vec!["s1".to_owned(), "b".to_owned(), "b".to_owned(), "s2".to_owned()]),
        ];
        assert_eq!(covered_by_another(&ids, &named), Ok(vec![true, true, true, false, false]));
        let only_self = vec![(2, vec!["s1".to_owned()])];
        assert_eq!(covered_by_another(&ids, &only_self), Ok(vec![false; 5]));
        // Many summaries sharing one id and naming it: none covers it, in linear time.
        let same: Vec<String> = vec!["x".to_owned(); 20_000];
        let naming: Vec<(usize, Vec<String>)> = (0..20_000).map(|owner| (owner, vec!["x".to_owned()])).collect();
        assert!(covered_by_another(&same, &naming).unwrap().iter().all(|covered| !covered));
    }

    #[test]
    fn summaries_that_cover_one_another_are_named_instead_of_hiding_what_they_hold() {
        let ids: Vec<String> = ["a", "b", "s1", "s2", "c", "s3"].map(String::from).to_vec();
        // s1 names s2 and a; s2 names s1 and b: each would hide the other.
        let cycle = vec![(2, vec!["s2".to_owned(), "a".to_owned()]), (3, vec!["s1".to_owned(), "b".to_owned()])];
        assert_eq!(covered_by_another(&ids, &cycle), Err(CoverageCycle { index: 0, summaries: vec![2, 3] }));
        // s3, left in recall, takes the two in: all of it is stood for.
        let mut taken_in = cycle.clone();
        taken_in.push((5, vec!["s1".to_owned()]));
        assert_eq!(covered_by_another(&ids, &taken_in), Ok(vec![true, true, true, true, false, false]));
        // A chain of rolled summaries ending in one left in recall is no cycle.
        let chain = vec![
            (2, vec!["a".to_owned()]),
            (3, vec!["s1".to_owned(), "b".to_owned()]),
            (5, vec!["s2".to_owned(), "c".to_owned()]),
        ];
        assert_eq!(covered_by_another(&ids, &chain), Ok(vec![true, true, true, true, true, false]));
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
    fn the_token_seam_keeps_whole_turns_until_they_hold_enough() {
        let turns = [Some(1.0), Some(1.0), Some(2.0), Some(2.0), None, Some(3.0)];
        let tokens = [5.0, 5.0, 7.0, 1.0, 2.0, 4.0];
        let facts: Vec<EntryFacts> = turns
            .iter()
            .zip(tokens)
            .map(|(&turn, tokens)| EntryFacts { turn, tokens, ..EntryFacts::default() })
            .collect();
        let raw: Vec<usize> = (0..facts.len()).collect();
        assert_eq!(seam_by_tokens(&facts, &raw, 0.0), 6, "nothing to keep");
        assert_eq!(seam_by_tokens(&facts, &raw, 4.0), 5, "turn 3 holds 4");
        assert_eq!(seam_by_tokens(&facts, &raw, 5.0), 4, "then the turnless entry");
        assert_eq!(seam_by_tokens(&facts, &raw, 7.0), 2, "turn 2 whole, never split");
        assert_eq!(seam_by_tokens(&facts, &raw, 14.0), 2, "exactly enough: no more turns");
        assert_eq!(seam_by_tokens(&facts, &raw, 14.5), 0);
        assert_eq!(seam_by_tokens(&facts, &raw, 1e9), 0);
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
