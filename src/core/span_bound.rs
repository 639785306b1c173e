//! `maxSpanChars` and `maxSpanTokens` (beyond the original): the most one
//! summarizer call is sent, and which part of a span that is.
//!
//! A summarizer has a context window, and a provider answers a request past
//! it with an error: a span holding a pasted log or a tool's output would
//! fail on every turn while recall carried it verbatim. Under a bound, a
//! fold takes the oldest whole turns of its span that fit; the rest stays
//! verbatim and folds on later turns. A turn that cannot fit whole is sent
//! with its largest messages cut to fit: each keeps its head and its tail,
//! with a marker between that says how much was left out. The audit still
//! reads every message whole, and the store keeps every original.
//!
//! A call's size counts everything it is sent, in the bound's unit: the
//! instruction, then each message as the call receives it (a transcript
//! line, or a callback's message). The host measures; the choices are here.

use super::events::InvalidSpot;
use super::format::{is_line_break, CONTINUATION};
use super::recall::EntryFacts;

/// The unit a bound counts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundUnit {
    /// UTF-16 units, as JS's `.length` counts them (`maxSpanChars`).
    Chars,
    /// The stage's `countTokens` (`maxSpanTokens`).
    Tokens,
}

/// The most one summarizer call is sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpanBound {
    pub unit: BoundUnit,
    pub max: f64,
}

impl SpanBound {
    /// The option that set it, as the user writes it.
    pub fn key(self) -> &'static str {
        match self.unit {
            BoundUnit::Chars => "maxSpanChars",
            BoundUnit::Tokens => "maxSpanTokens",
        }
    }

    /// The unit's word in a sentence.
    pub fn unit_name(self) -> &'static str {
        match self.unit {
            BoundUnit::Chars => "chars",
            BoundUnit::Tokens => "tokens",
        }
    }

    /// The least room a bound must leave the span after the instruction
    /// (and any summaries it rolls in). A bounded fold is sent at least half
    /// of it, and that half must be well over what a summary of it takes
    /// (a label of about 270 chars, the default instruction's 500 tokens of
    /// text, a `keepDetails` line of up to 1,000 chars): a summary no
    /// smaller than its span latches the span, and a span the bound keeps
    /// the same from turn to turn would then hold every later turn back.
    pub fn min_room(self) -> f64 {
        match self.unit {
            BoundUnit::Chars => 8_000.0,
            BoundUnit::Tokens => 2_000.0,
        }
    }

    /// The least a cut message may be given: its marker (about 60 chars)
    /// and a readable line of each end. A turn whose cut messages would get
    /// less does not fit.
    fn min_cut(self) -> f64 {
        match self.unit {
            BoundUnit::Chars => 200.0,
            BoundUnit::Tokens => 50.0,
        }
    }
}

/// What a call costs, measured by the host in the bound's unit.
pub trait Sizer {
    /// The call before any message: the instruction, and a transcript's markers.
    fn overhead(&mut self, bound: SpanBound) -> Result<f64, InvalidSpot>;
    /// What entry `index` (its `facts`) costs sent whole, once measured
    /// (more than `room` too: a later try with more room reads it again
    /// without measuring); None when it is more than `room` unmeasured (a
    /// message costs at least its length, or its tokens).
    fn entry(
        &mut self,
        bound: SpanBound,
        index: usize,
        facts: &EntryFacts,
        room: f64,
    ) -> Result<Option<f64>, InvalidSpot>;
    /// Entry `index` cut to at most `room`, kept by the host for the call;
    /// None when not even its marker fits.
    fn cut(
        &mut self,
        bound: SpanBound,
        index: usize,
        facts: &EntryFacts,
        room: f64,
    ) -> Result<Option<Cut>, InvalidSpot>;
}

/// One message a call is sent cut.
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// The entry's index in recall, and its id, as the event names it.
    pub index: usize,
    pub id: String,
    /// What the call is sent in the message's place (handed to the host
    /// with the fit that keeps the cut: a try the fit gave up on sends
    /// nothing cut).
    pub text: String,
    /// What the cut message costs in the call.
    pub cost: f64,
    /// The message's whole length, and the UTF-16 units left out of it.
    pub units: usize,
    pub left_out: usize,
}

/// What a bound made of a span.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounded {
    pub bound: SpanBound,
    /// The call's size: overhead, rolled summaries and the messages sent.
    pub sent: f64,
    /// The raw entries up to the seam that wait for later turns, and their chars.
    pub deferred_entries: usize,
    pub deferred_chars: usize,
    pub cuts: Vec<Cut>,
}

impl Bounded {
    /// Whether the bound changed what folds: then the fold cannot wait to
    /// grow (the cost rules that wait for more turns do not apply).
    pub fn shaped_the_span(&self) -> bool {
        self.deferred_entries > 0 || !self.cuts.is_empty()
    }
}

/// How a span meets its bound.
#[derive(Clone, Debug, PartialEq)]
pub enum Fitted {
    /// The oldest `rolled` summaries and the first `raw_entries` of the raw
    /// span fold, as `bounded` says.
    Fits { rolled: usize, raw_entries: usize, bounded: Bounded },
    /// The bound leaves too little for any fold: at least `needed` is.
    TooSmall { needed: f64 },
}

/// The oldest whole turns of `raw_span` (after the `rolled` summaries,
/// which are sent whole) that fit the bound. When the next turn does not
/// fit and what fits fills under half the room, that turn is taken too,
/// its largest messages cut to the room left: so each call is sent at
/// least half of the room, or everything up to the seam, and a turn too
/// big for any call is sent cut rather than waited on. A turn whose cut
/// messages would each get less than `min_cut` makes the span too small.
///
/// Summaries that would leave the span too little room roll in on a later
/// fold: the fit takes the most of the oldest `rolled` it can. Each piece
/// is measured once, however many summaries that tries.
pub fn fit(
    bound: SpanBound,
    facts: &[EntryFacts],
    rolled: &[usize],
    raw_span: &[usize],
    sizer: &mut impl Sizer,
) -> Result<Fitted, InvalidSpot> {
    let overhead = sizer.overhead(bound)?;
    let mut summaries = Vec::with_capacity(rolled.len());
    for &index in rolled {
        summaries.push(sizer.entry(bound, index, &facts[index], f64::INFINITY)?.unwrap_or(f64::INFINITY));
    }
    let mut measured = vec![None; raw_span.len()];
    let mut too_small = None;
    for taken in (0..=rolled.len()).rev() {
        let fixed = overhead + summaries[..taken].iter().sum::<f64>();
        match fit_raw(bound, fixed, facts, raw_span, &mut measured, sizer)? {
            Fitted::Fits { raw_entries, bounded, .. } => {
                return Ok(Fitted::Fits { rolled: taken, raw_entries, bounded })
            }
            // The least the span needs is what it needs with none rolled in.
            Fitted::TooSmall { needed } => too_small = Some(needed),
        }
    }
    Ok(Fitted::TooSmall { needed: too_small.unwrap_or(bound.max + 1.0) })
}

/// [`fit`] for the raw span once `fixed` (the overhead and the summaries
/// rolled in) is known. `measured` keeps each raw entry's cost once
/// measured whole (None until then).
fn fit_raw(
    bound: SpanBound,
    fixed: f64,
    facts: &[EntryFacts],
    raw_span: &[usize],
    measured: &mut [Option<f64>],
    sizer: &mut impl Sizer,
) -> Result<Fitted, InvalidSpot> {
    let room = bound.max - fixed;
    if !(room >= bound.min_room()) {
        return Ok(Fitted::TooSmall { needed: fixed + bound.min_room() });
    }
    let mut left = room;
    let mut cuts = Vec::new();
    let mut start = 0;
    while start < raw_span.len() {
        let end = turn_end(facts, raw_span, start);
        let turn = &raw_span[start..end];
        let mut costs = Vec::with_capacity(turn.len());
        for (at, &index) in turn.iter().enumerate() {
            if measured[start + at].is_none() {
                measured[start + at] = sizer.entry(bound, index, &facts[index], left)?;
            }
            costs.push(measured[start + at].filter(|&cost| cost <= left));
        }
        let whole = costs.iter().try_fold(0.0, |sum, cost| cost.map(|cost| sum + cost)).filter(|&sum| sum <= left);
        if let Some(whole) = whole {
            left -= whole;
            start = end;
            continue;
        }
        if room - left >= room / 2.0 {
            break;
        }
        // A turn that cannot be cut to the room left would hold every later
        // turn back as well: what fits before it is too little to fold alone.
        let Some((turn_cuts, used)) = cut_turn(bound, facts, turn, &costs, left, sizer)? else {
            let needed = bound.max - left + bound.min_cut() * turn.len() as f64;
            return Ok(Fitted::TooSmall { needed: needed.max(bound.max + 1.0) });
        };
        left -= used;
        cuts = turn_cuts;
        start = end;
        break;
    }
    let deferred = &raw_span[start..];
    let deferred_chars = deferred.iter().fold(0usize, |sum, &index| sum.saturating_add(facts[index].content_units));
    let bounded = Bounded { bound, sent: bound.max - left, deferred_entries: deferred.len(), deferred_chars, cuts };
    Ok(Fitted::Fits { rolled: 0, raw_entries: start, bounded })
}

/// Where the turn starting at `raw[start]` ends: a turn's entries are
/// neighbours with one defined turn, and an entry without one is a turn
/// of its own.
fn turn_end(facts: &[EntryFacts], raw: &[usize], start: usize) -> usize {
    match facts[raw[start]].turn {
        Some(turn) => raw[start..].iter().position(|&i| facts[i].turn != Some(turn)).map_or(raw.len(), |at| start + at),
        None => start + 1,
    }
}

/// A turn sent in `room` with its largest messages cut: the smaller ones go
/// whole while each is within an equal share of what is left, and the rest
/// share it equally, each cut to its share. The cuts and what the turn
/// costs; None when a share is too small to cut to.
fn cut_turn(
    bound: SpanBound,
    facts: &[EntryFacts],
    turn: &[usize],
    costs: &[Option<f64>],
    room: f64,
    sizer: &mut impl Sizer,
) -> Result<Option<(Vec<Cut>, f64)>, InvalidSpot> {
    // Water-filling: a message within the share stays within every later
    // share (each one taken out leaves the others more), so a pass takes
    // every such message at once, until a pass takes none.
    let mut whole = vec![false; turn.len()];
    let mut left = room;
    loop {
        let share = left / whole.iter().filter(|&&taken| !taken).count().max(1) as f64;
        let mut took = false;
        for (at, cost) in costs.iter().enumerate() {
            if let Some(cost) = cost.filter(|&cost| !whole[at] && cost <= share) {
                (whole[at], left, took) = (true, left - cost, true);
            }
        }
        if !took {
            break;
        }
    }
    let cut_count = whole.iter().filter(|&&taken| !taken).count();
    let share = left / cut_count.max(1) as f64;
    let share = if bound.unit == BoundUnit::Chars { share.floor() } else { share };
    if share < bound.min_cut() {
        return Ok(None);
    }
    let mut cuts = Vec::with_capacity(cut_count);
    let mut used = room - left;
    for (_, &index) in turn.iter().enumerate().filter(|&(at, _)| !whole[at]) {
        let Some(cut) = sizer.cut(bound, index, &facts[index], share)? else {
            return Ok(None);
        };
        used += cut.cost;
        cuts.push(cut);
    }
    Ok(Some((cuts, used)))
}

/// How a cut message is sent: inside a transcript (each line break
/// becomes a line and its continuation prefix) or as a message's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rendering {
    Transcript,
    Plain,
}

impl Rendering {
    /// What `c` costs once sent: a line break in a transcript is written
    /// `"\n"` and the continuation prefix (`\r\n` counts twice: never less
    /// than it costs).
    fn units(self, c: char) -> usize {
        match self {
            Rendering::Transcript if is_line_break(c) => 1 + CONTINUATION.len(),
            _ => c.len_utf16(),
        }
    }

    fn text_units(self, text: &str) -> usize {
        text.chars().map(|c| self.units(c)).sum()
    }
}

/// What stands where a cut message's middle was.
pub fn cut_marker(left_out: usize) -> String {
    format!("\n[\u{2026} {left_out} characters of this message left out here \u{2026}]\n")
}

/// A message of `units` UTF-16 units cut to cost at most `room` once sent:
/// its head, the marker, and its tail, in about equal parts. `head` is a
/// start of the message and `tail` an end of it, each at least as long as
/// any part kept (the host need not copy the middle). The cut text and the
/// units it left out; None when not even the marker fits.
pub fn cut_message(head: &str, tail: &str, units: usize, room: usize, rendering: Rendering) -> Option<(String, usize)> {
    let budget = room.checked_sub(rendering.text_units(&cut_marker(units)))?;
    let (head_end, head_cost, head_units) = head_kept(head, budget / 2, units, rendering);
    let (tail_start, tail_units) = tail_kept(tail, budget - head_cost, units - head_units, rendering);
    let left_out = units - head_units - tail_units;
    Some((format!("{}{}{}", &head[..head_end], cut_marker(left_out), &tail[tail_start..]), left_out))
}

/// How much of `text`'s start costs at most `budget` once sent, in at most
/// `max_units`: where it ends (a byte offset), its cost and its units.
fn head_kept(text: &str, budget: usize, max_units: usize, rendering: Rendering) -> (usize, usize, usize) {
    let (mut end, mut cost, mut units) = (0, 0, 0);
    for (at, c) in text.char_indices() {
        if cost + rendering.units(c) > budget || units + c.len_utf16() > max_units {
            break;
        }
        (end, cost, units) = (at + c.len_utf8(), cost + rendering.units(c), units + c.len_utf16());
    }
    (end, cost, units)
}

/// How much of `text`'s end costs at most `budget` once sent, in at most
/// `max_units`: where it starts (a byte offset) and its units.
fn tail_kept(text: &str, budget: usize, max_units: usize, rendering: Rendering) -> (usize, usize) {
    let (mut start, mut cost, mut units) = (text.len(), 0, 0);
    for (at, c) in text.char_indices().rev() {
        if cost + rendering.units(c) > budget || units + c.len_utf16() > max_units {
            break;
        }
        (start, cost, units) = (at, cost + rendering.units(c), units + c.len_utf16());
    }
    (start, units)
}

#[cfg(test)]
mod tests;
