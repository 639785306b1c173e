//! SPEC §4 step 1 and §8's shapes: recall read ONCE, by iteration, and every
//! field of every entry read once (a getter or Proxy may answer differently
//! the second time). What was read is kept as read: the caller's own entry
//! objects and id strings go back out untouched.

use js_sys::{Array, Function, JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js::{self, Coverage, Entry, Message, Metadata, Scope, Source};
use super::tokens;
use crate::core::events::{threw, InvalidSpot};
use crate::core::format::MAX_ROLE_UNITS;
use crate::core::recall::{covered_by_another, EntryFacts, IdBudget, OverBudget, SummaryFacts, TooLarge, MAX_ENTRIES};

/// One recall as read: the entries as JS holds them, beside the facts the
/// core decides with and each id as text.
#[derive(Default)]
pub struct Recall {
    pub entries: Vec<LoadedEntry>,
    pub facts: Vec<EntryFacts>,
    /// Each id as its key (`matching_key`), for matching and span keys.
    pub id_keys: Vec<String>,
}

/// One loaded entry, as read.
pub struct LoadedEntry {
    /// The caller's own entry.
    pub entry: JsValue,
    /// Its id, the caller's own string.
    pub id: JsString,
    /// Its `value` object.
    pub value: JsValue,
    /// Its `value.content` when it is a string. Only the span's are copied
    /// into Wasm, for the transcript: copying every content on every visit
    /// would be most of a visit's cost (README, "Benchmarks").
    pub content: Option<JsString>,
    /// Its `source` object, when it has one.
    pub source: JsValue,
}

/// Recall as a visit's host holds it, with one accessor for what a fold
/// reads of an entry ([`HeldRecall::fold_field`]).
pub enum HeldRecall {
    /// Every entry as read.
    Read(Vec<LoadedEntry>),
    /// What a background fold keeps once its visit has had its result:
    /// three handles instead of a handle per field of every entry, which
    /// would be most of what thousands of hung folds hold (README, "Hung
    /// summarizers"). Every id (the fold's event names the entries recall
    /// dropped), and the span's contents (the audit) and values (a callback
    /// called after a claim), each at its entry's index.
    /// The arrays in [`FoldField`] order.
    KeptForFold([Array; FoldField::COUNT]),
}

/// What a fold reads of an entry, once recall is kept for it.
#[derive(Clone, Copy)]
pub enum FoldField {
    Id,
    /// `value.content` when it is a string, else undefined.
    Content,
    Value,
}

impl FoldField {
    const COUNT: usize = 3;
}

impl HeldRecall {
    /// The entries as read: none once kept for a background fold.
    pub fn read(&self) -> &[LoadedEntry] {
        match self {
            HeldRecall::Read(entries) => entries,
            HeldRecall::KeptForFold { .. } => &[],
        }
    }

    pub fn fold_field(&self, index: usize, field: FoldField) -> JsValue {
        match self {
            HeldRecall::Read(entries) => {
                let entry = &entries[index];
                match field {
                    FoldField::Id => entry.id.clone().into(),
                    FoldField::Content => entry.content.clone().map_or(JsValue::UNDEFINED, JsValue::from),
                    FoldField::Value => entry.value.clone(),
                }
            }
            HeldRecall::KeptForFold(kept) => kept[field as usize].get(index as u32),
        }
    }

    /// Keeps only what a fold over `span` reads.
    pub fn keep_for_fold(&mut self, span: &[usize]) {
        let HeldRecall::Read(entries) = std::mem::replace(self, HeldRecall::Read(Vec::new())) else {
            return;
        };
        let (contents, values) =
            (Array::new_with_length(entries.len() as u32), Array::new_with_length(entries.len() as u32));
        for &index in span {
            let entry = &entries[index];
            if let Some(content) = &entry.content {
                contents.set(index as u32, content.clone().into());
            }
            values.set(index as u32, entry.value.clone());
        }
        let ids = entries.into_iter().map(|entry| JsValue::from(entry.id)).collect();
        *self = HeldRecall::KeptForFold([ids, contents, values]);
    }
}

/// How a visit with token budgets counts each entry's content as recall
/// is read: by `countTokens`, or by `ceil(length / 4)` without one.
pub struct Counting<'a>(pub Option<&'a Function>);

/// Recall that breaks SPEC §8's shapes: where, and how many entries `loaded`
/// held (none when `loaded` itself is the problem).
pub struct Unusable {
    pub spot: InvalidSpot,
    pub loaded_len: usize,
}

/// `scope.loaded`, read once.
pub fn scope_loaded(scope: &JsValue) -> Result<JsValue, Unusable> {
    scope.unchecked_ref::<Scope>().loaded().map_err(|error| loaded_spot(threw("reading", &js::cause_of(&error))))
}

/// Reads `loaded` (null or undefined as empty): a copy by iteration, then
/// each entry, and with `counting` each content's tokens, once every entry
/// has been read. On bad input, the first offending spot.
pub fn read_recall(loaded: &JsValue, counting: Option<Counting>) -> Result<Recall, Unusable> {
    if loaded.is_undefined() || loaded.is_null() {
        return Ok(Recall::default());
    }
    let iterating = |error: JsValue| loaded_spot(threw("iterating", &js::cause_of(&error)));
    if !js::is_array(loaded).map_err(iterating)? {
        return Err(loaded_spot(js::describe(loaded)));
    }
    let length = Reflect::get(loaded, &JsValue::from_str("length")).map_err(iterating)?.as_f64().unwrap_or(0.0);
    let too_large = |what: TooLarge| Unusable { spot: what.spot(), loaded_len: length as usize };
    if length > MAX_ENTRIES as f64 {
        return Err(too_large(TooLarge::Length(length)));
    }
    let snapshot = js::copy_up_to(loaded, MAX_ENTRIES as u32).map_err(iterating)?;
    // An iterator of its own can yield more than `length` said, without end.
    if snapshot.length() as usize > MAX_ENTRIES {
        return Err(too_large(TooLarge::Endless));
    }
    let mut recall = Recall::default();
    let mut named = Vec::new();
    let mut budget = IdBudget::new();
    for (index, entry) in snapshot.iter().enumerate() {
        let loaded_len = snapshot.length() as usize;
        let read = read_entry(&entry, index, &mut budget).map_err(|spot| Unusable { spot, loaded_len })?;
        if let Some(covered_ids) = read.covered_ids {
            named.push((index, covered_ids));
        }
        let EntryRead { id, id_key, value, content, source, facts, .. } = read;
        recall.entries.push(LoadedEntry { entry, id, value, content, source });
        recall.id_keys.push(id_key);
        recall.facts.push(facts);
    }
    let covered = covered_by_another(&recall.id_keys, &named).map_err(|cycle| {
        let summaries: Vec<String> =
            cycle.summaries.iter().map(|&index| String::from(&recall.entries[index].id)).collect();
        Unusable { spot: InvalidSpot::covered_in_a_cycle(cycle.index, &summaries), loaded_len: recall.entries.len() }
    })?;
    for (fact, covered) in recall.facts.iter_mut().zip(covered) {
        fact.covered = covered;
    }
    if let Some(what) = TooLarge::of_contents(&recall.facts) {
        return Err(Unusable { spot: what.spot(), loaded_len: recall.entries.len() });
    }
    if let Some(Counting(counter)) = counting {
        for (index, (entry, facts)) in recall.entries.iter().zip(&mut recall.facts).enumerate() {
            let tokens = match &entry.content {
                Some(text) if text.length() > 0 => tokens::count(counter, text),
                _ => Ok(0.0),
            };
            facts.tokens = tokens.map_err(|found| Unusable {
                spot: InvalidSpot::uncounted(index, found),
                loaded_len: recall.entries.len(),
            })?;
        }
    }
    Ok(recall)
}

fn loaded_spot(found: String) -> Unusable {
    Unusable { spot: InvalidSpot::loaded(found), loaded_len: 0 }
}

/// A JS string as a key for matching: its UTF-8 when it is well formed, and
/// otherwise its UTF-16 code units in hex (UTF-8 cannot hold a lone
/// surrogate, and two ids that differ only there must stay two ids). The
/// two forms start differently, so no id of one form equals one of the other.
pub fn matching_key(id: &JsString) -> String {
    if id.is_well_formed() {
        format!("={}", String::from(id))
    } else {
        id.iter().fold(String::from("#"), |text, unit| text + &format!("{unit:04x}"))
    }
}

struct EntryRead {
    id: JsString,
    id_key: String,
    value: JsValue,
    content: Option<JsString>,
    source: JsValue,
    facts: EntryFacts,
    /// A summary's `coveredIds`, as `matching_key`s (other values name nothing).
    covered_ids: Option<Vec<String>>,
}

/// A finite number, or what `otherwise` gives.
fn finite_or(value: JsValue, otherwise: f64) -> f64 {
    value.as_f64().filter(|n| n.is_finite()).unwrap_or(otherwise)
}

/// Entry `index`, every field read once; or the spot that breaks SPEC §8's shapes.
fn read_entry(entry: &JsValue, index: usize, budget: &mut IdBudget) -> Result<EntryRead, InvalidSpot> {
    let refused = |field, value: &JsValue, expected| InvalidSpot::entry(index, field, js::describe(value), expected);
    let unreadable = |error: JsValue| {
        InvalidSpot::entry(index, "entry", threw("reading", &js::cause_of(&error)), "a plain memory entry")
    };
    let over = |bound: OverBudget| bound.at(index);
    // A finite number, or absent (undefined or null).
    let optional_number = |value: JsValue, field| match value.as_f64() {
        Some(n) if n.is_finite() => Ok(Some(n)),
        _ if value.is_undefined() || value.is_null() => Ok(None),
        _ => Err(refused(field, &value, "a finite number or absent")),
    };
    if !entry.is_object() {
        return Err(refused("entry", entry, "a memory entry object"));
    }
    let entry: &Entry = entry.unchecked_ref();
    let id = entry.id().map_err(unreadable)?;
    let Some(id) = id.dyn_ref::<JsString>().cloned() else {
        return Err(refused("id", &id, "a string"));
    };
    budget.copy_id_text(id.length() as usize).map_err(over)?;
    let value = entry.value().map_err(unreadable)?;
    if !value.is_object() {
        return Err(refused("value", &value, "an object with a `content`"));
    }
    let content = match value.unchecked_ref::<Message>().content().map_err(unreadable)?.dyn_into::<JsString>() {
        Ok(text) => Some(text),
        Err(absent) if absent.is_undefined() || absent.is_null() => None,
        Err(other) => return Err(refused("value.content", &other, "a string, null or absent")),
    };
    let source = entry.source().map_err(unreadable)?;
    let turn = if source.is_object() {
        optional_number(source.unchecked_ref::<Source>().turn().map_err(unreadable)?, "source.turn")?
    } else {
        None
    };
    let updated_at = optional_number(entry.updated_at().map_err(unreadable)?, "updatedAt")?;
    let metadata = entry.metadata().map_err(unreadable)?;
    let (summary, claim, covered_ids) = match coverage_in(&metadata).map_err(unreadable)? {
        Some((coverage, covered_ids)) => {
            let to_turn = finite_or(coverage.to_turn().map_err(unreadable)?, 0.0);
            let from_turn = finite_or(coverage.from_turn().map_err(unreadable)?, to_turn);
            // A copy by iteration: an exotic array (a Proxy) runs its traps here, where a throw is this entry's.
            let copy = js::copy_up_to(&covered_ids, budget.covered_ids_left() as u32).map_err(unreadable)?;
            budget.name_covered_ids(copy.length() as usize).map_err(over)?;
            let mut named = Vec::new();
            for id in copy.iter() {
                if let Some(id) = id.dyn_ref::<JsString>() {
                    budget.copy_id_text(id.length() as usize).map_err(over)?;
                    named.push(matching_key(id));
                }
            }
            (Some(SummaryFacts { to_turn, from_turn }), false, Some(named))
        }
        None => (None, claim_in(&metadata).map_err(unreadable)?, None),
    };
    let facts = EntryFacts {
        turn,
        updated_at,
        content_units: content.as_ref().map_or(0, |text| text.length() as usize),
        tokens: 0.0,
        summary,
        covered: false,
        claim,
    };
    Ok(EntryRead { id_key: matching_key(&id), id, value, content, source, facts, covered_ids })
}

/// `metadata.summarizes` when it is a summary's coverage (an object with an
/// array `coveredIds`), with that array. May throw (getters).
fn coverage_in(metadata: &JsValue) -> Result<Option<(Coverage, JsValue)>, JsValue> {
    if !metadata.is_object() {
        return Ok(None);
    }
    let coverage = metadata.unchecked_ref::<Metadata>().summarizes()?;
    if !coverage.is_object() {
        return Ok(None);
    }
    let coverage: Coverage = coverage.unchecked_into();
    let covered_ids = coverage.covered_ids()?;
    Ok(js::is_array(&covered_ids)?.then_some((coverage, covered_ids)))
}

/// Whether `metadata` marks a fleet's claim (checked once it is not a summary's). May throw.
fn claim_in(metadata: &JsValue) -> Result<bool, JsValue> {
    Ok(metadata.is_object() && metadata.unchecked_ref::<Metadata>().summary_claim()?.is_object())
}

/// SPEC §1 `summaryCoverage`: the stored coverage object itself, or undefined.
pub fn coverage_of(entry: &JsValue) -> JsValue {
    let read = || coverage_in(&entry.unchecked_ref::<Entry>().metadata()?);
    match entry.is_object().then(read) {
        Some(Ok(Some((coverage, _)))) => coverage.into(),
        _ => JsValue::UNDEFINED,
    }
}

/// `isSummaryClaim`: a fleet's claim that is not a summary, as recall leaves it out.
pub fn is_claim(entry: &JsValue) -> bool {
    let read = || {
        let metadata = entry.unchecked_ref::<Entry>().metadata()?;
        Ok::<_, JsValue>(coverage_in(&metadata)?.is_none() && claim_in(&metadata)?)
    };
    entry.is_object() && read().unwrap_or(false)
}

/// An entry's role as the transcript renders it (SPEC §5), read once, with
/// `String(role)` (its first [`MAX_ROLE_UNITS`]); None when it has no
/// string form (a getter that throws, a symbol).
pub fn role_of(entry: &LoadedEntry) -> Option<Option<String>> {
    let role = entry.value.unchecked_ref::<Message>().role().ok()?;
    if role.is_undefined() || role.is_null() {
        return Some(None);
    }
    js::js_string(&role).ok().map(|role| Some(String::from(role.slice(0, MAX_ROLE_UNITS))))
}
