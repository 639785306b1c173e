//! One visit's decisions (SPEC §4 steps 2–10): which entries are kept, which
//! span is considered, and what each way of declining or folding settles to.
//! Everything here is a pure function of the facts and the config.

use super::config::StageConfig;
use super::details::Audit;
use super::events::{
    self, Caller, ClaimState, Event, Evidence, FoldReport, InvalidSpot, SpanFacts, TokenReport, Usage, WriteBack,
};
use super::format::{claim_entry_id, summary_entry_id};
use super::recall::{seam, seam_by_tokens, to_turn, turn_start, EntryFacts, Partition};
use super::span_bound::{self, Bounded, Fitted, Sizer};

/// What a fold's summary came to, as its event reports it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fold {
    pub summary_chars: usize,
    /// The summary's tokens, when the stage counts tokens.
    pub summary_tokens: Option<f64>,
    pub usage: Option<Usage>,
    /// What the summary kept of the span's details.
    pub audit: Audit,
}

/// One place in a recall: a loaded entry, by its index in the snapshot, or
/// the new summary entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    Loaded(u32),
    NewSummary,
}

/// A recall as slots, and the event that explains it.
#[derive(Clone, Debug, PartialEq)]
pub struct Settled {
    pub recall: Vec<Slot>,
    pub event: Option<Event>,
}

impl Settled {
    /// Its event marked `background` (`scoreEvidence.background: true`).
    pub fn in_background(mut self) -> Settled {
        if let Some(event) = self.event.as_mut() {
            event.background = true;
        }
        self
    }

    /// Element-for-element the loaded snapshot: then nothing is assigned.
    pub fn is_unchanged(&self, loaded_len: usize) -> bool {
        self.recall.len() == loaded_len && self.recall.iter().enumerate().all(|(i, &slot)| slot == loaded(i))
    }
}

impl Slot {
    /// The loaded entry's index; None for the new summary.
    pub fn loaded_index(self) -> Option<usize> {
        match self {
            Slot::Loaded(index) => Some(index as usize),
            Slot::NewSummary => None,
        }
    }
}

/// The slot of loaded entry `index`.
pub fn loaded(index: usize) -> Slot {
    Slot::Loaded(index as u32)
}

pub enum Plan {
    /// No call is worth making; settle as given.
    Settle(Settled),
    /// A span is big enough to fold; the caller checks latch, clock and cost.
    Consider(Candidate),
}

/// The visit when a fold is considered: the partition, the seam and the span.
#[derive(Clone, Debug)]
pub struct Candidate {
    input_count: usize,
    part: Partition,
    /// The oldest summaries that fold into the new one (`maxSummaries`), oldest first.
    rolled: usize,
    /// The first `raw_entries` raw entries fold; the rest are the tail.
    raw_entries: usize,
    /// What folds: the rolled summaries and the raw span together.
    pub span: SpanFacts,
    /// How many of `span.chars` are the rolled summaries'.
    rolled_chars: usize,
    /// `createdAt`/`updatedAt` of the summary; `None` means "use now".
    pub anchor: Option<f64>,
    /// `toTurn` of each summary already in recall, in sorted order.
    summary_turns: Vec<f64>,
    /// UTF-16 length of the label and separator the summary's content starts
    /// with (`StageConfig::header`): known before any call (SPEC §8).
    label_chars: usize,
    /// Tokens in recall as loaded, in what folds, and in what a fold keeps
    /// beside its summary, when the stage counts tokens.
    tokens: Option<TokenTotals>,
    /// A recency window can take one more turn as large as the newest
    /// before it drops anything but entries recall leaves out (`defer`).
    slack: bool,
    /// What `maxSpanChars` or `maxSpanTokens` made of the span, when set.
    pub bounded: Option<Bounded>,
}

#[derive(Clone, Copy, Debug)]
struct TokenTotals {
    before: f64,
    span: f64,
    /// The raw span's: the new text a fold takes out of recall.
    new: f64,
    kept: f64,
}

pub fn plan(config: &StageConfig, facts: &[EntryFacts], part: Partition) -> Plan {
    let split_at = match config.tokens.and_then(|tokens| tokens.preserve_recent) {
        Some(min_tokens) => seam_by_tokens(facts, &part.raw, min_tokens),
        None => seam(facts, &part.raw, config.preserve_recent),
    };
    let min_fold = config.min_fold_entries.max(1);
    if !triggered(config, facts, &part) || split_at < min_fold {
        let left_out = part.left_out();
        let event = (!left_out.is_empty()).then(|| {
            let (reason, evidence) = events::covered_only(part.excluded.len(), part.summaries.len(), part.claims.len());
            make_event(facts.len(), part.summaries.len() + part.raw.len(), left_out, None, reason, evidence)
        });
        return Plan::Settle(Settled { recall: concat_slots(&part.summaries, &part.raw), event });
    }
    // `maxSummaries`: the oldest summaries beyond the bound fold in too.
    let rolled = config.max_summaries.map_or(0, |max| (part.summaries.len() + 1).saturating_sub(max));
    Plan::Consider(consider(config, facts, part, rolled, split_at))
}

/// The candidate that folds the `rolled` oldest summaries and the first
/// `split_at` raw entries (at least one), measured (SPEC §4 step 6).
fn consider(config: &StageConfig, facts: &[EntryFacts], part: Partition, rolled: usize, split_at: usize) -> Candidate {
    let rolled_indices = &part.summaries[..rolled];
    let span_indices = &part.raw[..split_at];
    let folded = rolled_indices.iter().chain(span_indices).map(|&i| &facts[i]);
    // Saturating: a span's UTF-16 length cannot wrap around on wasm32's 32-bit usize.
    let chars = folded.clone().fold(0usize, |sum, f| sum.saturating_add(f.content_units));
    let rolled_chars = rolled_indices.iter().fold(0usize, |sum, &i| sum.saturating_add(facts[i].content_units));
    let span_from = facts[span_indices[0]].turn.unwrap_or(0.0);
    // The newest turn folded: the raw span's last, or a rolled summary's
    // own toTurn when that is later (raw turns a summary covers may be
    // loaded without it), so the new summary never names itself by a
    // range older than what it holds.
    let rolled_to = rolled_indices.iter().map(|&i| to_turn(&facts[i])).fold(f64::NEG_INFINITY, f64::max);
    let to_turn_value = facts[span_indices[split_at - 1]].turn.unwrap_or(span_from).max(rolled_to);
    let from_turn = rolled_indices.first().and_then(|&i| facts[i].summary.as_ref()).map_or(span_from, |s| s.from_turn);
    // max(0, updatedAt + 1 …): a missing clock makes the JS max NaN, and NaN or 0 means "now".
    let anchor = folded
        .map(|f| f.updated_at.map(|u| u + 1.0))
        .try_fold(0.0_f64, |max, next| next.map(|n| if n.is_nan() { f64::NAN } else { max.max(n) }))
        .filter(|a| *a != 0.0 && !a.is_nan());
    let summary_turns = part.summaries[rolled..].iter().map(|&i| to_turn(&facts[i])).collect();
    let entries = rolled + split_at;
    let label_chars = config.label_chars(&[from_turn, to_turn_value, entries as f64]);
    let sum_tokens = |indices: &[usize]| indices.iter().map(|&i| facts[i].tokens).sum::<f64>();
    // The entries at the front of the load that recall leaves out (a summary
    // stands for them, or they are the fleet's claims, dated first), and what
    // the next turn may push out of a recency window: as many as the newest
    // turn holds.
    let leading_left_out = part.summaries.iter().chain(&part.raw).min().map_or(facts.len(), |&oldest_kept| oldest_kept);
    let raw_len = part.raw.len();
    let newest_turn = if raw_len == 0 { 1 } else { raw_len - turn_start(facts, &part.raw, raw_len) };
    let slack = leading_left_out >= newest_turn;
    let tokens = config.tokens.map(|_| TokenTotals {
        before: facts.iter().map(|f| f.tokens).sum(),
        span: sum_tokens(rolled_indices) + sum_tokens(span_indices),
        new: sum_tokens(span_indices),
        kept: sum_tokens(&part.summaries[rolled..]) + sum_tokens(&part.raw[split_at..]),
    });
    Candidate {
        input_count: facts.len(),
        part,
        rolled,
        raw_entries: split_at,
        span: SpanFacts { entries, chars, from_turn, to_turn: to_turn_value },
        rolled_chars,
        anchor,
        summary_turns,
        label_chars,
        tokens,
        slack,
        bounded: None,
    }
}

/// SPEC §4 step 5's trigger: enough entries, or (`triggerMinChars`,
/// `triggerMinTokens`) enough text in the raw recall, whatever the count.
fn triggered(config: &StageConfig, facts: &[EntryFacts], part: &Partition) -> bool {
    facts.len() >= config.trigger_min_entries
        || config.trigger_min_chars.is_some_and(|min| {
            part.raw.iter().fold(0usize, |sum, &i| sum.saturating_add(facts[i].content_units)) >= min
        })
        || config
            .tokens
            .and_then(|tokens| tokens.trigger_min)
            .is_some_and(|min| part.raw.iter().map(|&i| facts[i].tokens).sum::<f64>() >= min)
}

impl Candidate {
    /// `maxSpanChars` / `maxSpanTokens` (§8, Bounded spans): the part of
    /// this span one call can be sent, its size measured by `sizer`; or,
    /// when the bound leaves no room for a fold, the decline that says so.
    pub fn within_bound(
        self,
        config: &StageConfig,
        facts: &[EntryFacts],
        sizer: &mut impl Sizer,
    ) -> Result<Plan, InvalidSpot> {
        let Some(bound) = config.max_span else {
            return Ok(Plan::Consider(self));
        };
        match span_bound::fit(bound, facts, self.rolled_indices(), self.raw_span(), sizer)? {
            Fitted::TooSmall { needed } => {
                Ok(Plan::Settle(self.decline(events::span_bound_too_small(self.span, bound, needed))))
            }
            Fitted::Fits { rolled, raw_entries, bounded } => {
                let mut candidate = if (rolled, raw_entries) == (self.rolled, self.raw_entries) {
                    self
                } else {
                    consider(config, facts, self.part, rolled, raw_entries)
                };
                candidate.bounded = Some(bounded);
                Ok(Plan::Consider(candidate))
            }
        }
    }

    /// The messages a span bound sends cut, by entry index, with the text
    /// each is sent as: taken out for the host, which writes the call.
    pub fn take_cut_texts(&mut self) -> Vec<(usize, String)> {
        let cuts = self.bounded.iter_mut().flat_map(|bounded| &mut bounded.cuts);
        cuts.map(|cut| (cut.index, std::mem::take(&mut cut.text))).collect()
    }

    /// Whether a bound cut the span short or cut a message: the span
    /// cannot grow past the bound, so the cost rules that wait for it to
    /// grow (the token floor, the foreseeable refusal, the deferral) would
    /// wait for good, and do not apply.
    pub fn shaped_by_bound(&self) -> bool {
        self.bounded.as_ref().is_some_and(Bounded::shaped_the_span)
    }

    /// Indices of what folds, oldest first: the rolled summaries, then the
    /// raw span. The summary names exactly these (`coveredIds`).
    pub fn folded_indices(&self) -> Vec<usize> {
        self.rolled_indices().iter().chain(self.raw_span()).copied().collect()
    }

    /// The summaries that fold into the new one, oldest first.
    pub fn rolled_indices(&self) -> &[usize] {
        &self.part.summaries[..self.rolled]
    }

    /// The raw entries that fold, oldest first.
    pub fn raw_span(&self) -> &[usize] {
        &self.part.raw[..self.raw_entries]
    }

    /// UTF-16 length of the label plus its separator.
    pub fn label_chars(&self) -> usize {
        self.label_chars
    }

    /// The id the summary entry of this span gets (`msg-summary-{from}-{to}`):
    /// written only when a fold needs it.
    pub fn summary_id(&self) -> String {
        summary_entry_id(self.span.from_turn, self.span.to_turn)
    }

    /// SPEC §8, `minFoldTokens`: the raw span holds fewer tokens than the
    /// floor, so no call is made (never latched: the span grows as turns
    /// leave the tail), but only while waiting cannot let a turn no summary
    /// holds fall out of a recency window (`slack`, as for `defer`).
    pub fn too_few_tokens(&self, config: &StageConfig) -> Option<Settled> {
        let (totals, min_fold) = (self.tokens?, config.tokens?.min_fold);
        (self.slack && !self.shaped_by_bound() && totals.new < min_fold)
            .then(|| self.decline(events::too_few_tokens(self.span, totals.new, min_fold)))
    }

    /// SPEC §8: a refusal foreseen before paying for the call. Always, when
    /// even an empty summary could not make recall smaller. With an option
    /// beyond the original (`StageConfig::foresees_refusals`), also when
    /// the label leaves the summary less than `1 / ROOM_SHARE` of the
    /// span's length: the long-conversation bench's refused calls were all
    /// such spans, as a summary of a short span is rarely much shorter than
    /// half of it (README, "Economy").
    pub fn predicted_refusal(&self, config: &StageConfig) -> Option<Settled> {
        if !self.made_smaller_by(self.label_chars) {
            return Some(self.decline(events::predicted_not_smaller(self.span, self.label_chars)));
        }
        let room = self.span.chars - self.label_chars;
        let foreseen = config.foresees_refusals() && !self.shaped_by_bound();
        (foreseen && room.saturating_mul(events::ROOM_SHARE) < self.span.chars)
            .then(|| self.decline(events::predicted_too_little_room(self.span, self.label_chars, room)))
    }

    /// SPEC §4 step 9: whether a summary of `summary_chars` UTF-16 units,
    /// label included, makes recall smaller; one that does not is refused.
    pub fn made_smaller_by(&self, summary_chars: usize) -> bool {
        summary_chars < self.span.chars
    }

    /// How long a line may be added after a summary of `summary_chars` while
    /// the summary stays smaller than its span (`keepDetails`).
    pub fn room_after(&self, summary_chars: usize) -> usize {
        self.span.chars.saturating_sub(summary_chars + 1)
    }

    /// The raw span's chars: the new text a fold takes out of recall.
    fn new_chars(&self) -> usize {
        self.span.chars.saturating_sub(self.rolled_chars)
    }

    /// Under `maxSummaries` only: the fold would take out of recall less
    /// than `WORTH_FACTOR` label-lengths of new text. A rolling fold pays to
    /// rewrite the earlier summary as well, so a small span is deferred
    /// (never latched: it grows as turns leave the tail), but only while the
    /// oldest loaded entries, at least as many as the newest turn holds, are
    /// ones recall leaves out (a summary already stands for them, or they are
    /// the fleet's claims, which are dated first): a recency window drops its oldest
    /// entries first, one turn's worth at a time, and waiting must never let
    /// the summary, or a turn no summary holds, fall out of recall. Off by
    /// default: the original folds such spans, and it must not change a fold
    /// it keeps.
    pub fn defer(&self, config: &StageConfig) -> Option<Settled> {
        let too_small = self.new_chars() < events::WORTH_FACTOR * self.label_chars;
        (config.max_summaries.is_some() && self.slack && !self.shaped_by_bound() && too_small)
            .then(|| self.decline(events::deferred(self.span, self.label_chars, self.new_chars())))
    }

    /// settle(raw) with the given decline explained.
    fn decline(&self, (reason, evidence): (String, Evidence)) -> Settled {
        let recall = concat_slots(&self.part.summaries, &self.part.raw);
        let output = recall.len();
        Settled {
            recall,
            event: Some(make_event(self.input_count, output, self.part.left_out(), None, reason, evidence)),
        }
    }

    /// A span refused before. One a bound cut short stays the same while
    /// later turns wait behind it, so its reason says what to change.
    pub fn latched(&self) -> Settled {
        self.decline(events::latched(self.span, self.bounded.as_ref().filter(|_| self.shaped_by_bound())))
    }

    /// `background: true`: served without the fold this visit started (its
    /// summarizer called now, or after the fleet's claim).
    pub fn started_in_background(&self, summarizer_called: bool) -> Settled {
        self.decline(events::background_started(self.span, summarizer_called)).in_background()
    }

    /// `background: true`: served without the fold of this conversation in flight.
    pub fn behind_background(&self) -> Settled {
        self.decline(events::background_in_flight(self.span)).in_background()
    }

    /// The id of the fleet's claim on this span (`msg-summary-claim-{from}-{to}`).
    pub fn claim_id(&self) -> String {
        claim_entry_id(self.span.from_turn, self.span.to_turn)
    }

    pub fn invalid_clock(&self, found: &str) -> Settled {
        self.decline(events::invalid_clock(found))
    }

    /// settle(tail) with the new summary placed among the summaries by `toTurn`.
    pub fn folded(
        &self,
        fold: &Fold,
        write_back: &WriteBack,
        model: Option<&str>,
        caller: Caller,
        claim: &ClaimState,
    ) -> Settled {
        let tail = &self.part.raw[self.raw_entries..];
        let kept_summaries = &self.part.summaries[self.rolled..];
        // Stable: the new summary goes after existing summaries with the same toTurn.
        let insert_at = self.summary_turns.partition_point(|&t| t <= self.span.to_turn);
        let mut recall = Vec::with_capacity(kept_summaries.len() + 1 + tail.len());
        recall.extend(kept_summaries[..insert_at].iter().map(|&i| loaded(i)));
        recall.push(Slot::NewSummary);
        recall.extend(kept_summaries[insert_at..].iter().chain(tail).map(|&i| loaded(i)));
        let mut dropped = self.part.left_out();
        dropped.extend(self.folded_indices());
        let summary_id = self.summary_id();
        let (reason, evidence) = events::folded(FoldReport {
            span: self.span,
            rolled: self.rolled,
            kept: tail.len(),
            summary_id: &summary_id,
            summary_chars: fold.summary_chars,
            write_back,
            model,
            usage: fold.usage.clone(),
            caller,
            claim,
            audit: &fold.audit,
            bounded: self.bounded.as_ref(),
            tokens: self.tokens.zip(fold.summary_tokens).map(|(totals, summary)| TokenReport {
                recall_before: totals.before,
                recall_after: totals.kept + summary,
                span: totals.span,
                summary,
            }),
        });
        let added = Some(summary_id);
        let output = recall.len();
        Settled { recall, event: Some(make_event(self.input_count, output, dropped, added, reason, evidence)) }
    }
}

impl Candidate {
    /// Settles a run over this span from the call's outcome; a fold also
    /// gives back the new summary's entry, which its slot in recall stands for.
    pub fn settle<Entry>(
        &self,
        outcome: CallOutcome<Entry>,
        model: Option<&str>,
        caller: Caller,
        claim: &ClaimState,
    ) -> (Settled, Option<Entry>) {
        let span = self.span;
        let declined = match outcome {
            CallOutcome::ClaimedElsewhere => events::claimed_elsewhere(span, &self.claim_id()),
            CallOutcome::ClaimFailed { cause } => events::claim_failed(span, &self.claim_id(), &cause),
            CallOutcome::Unreadable { what } => events::unreadable_span(span, what, claim),
            CallOutcome::Failed { cause, sent_chars } => {
                let sent = events::Sent { bounded: self.bounded.as_ref(), chars: sent_chars };
                events::failed(span, model, caller, &cause, claim, sent)
            }
            CallOutcome::NotSmaller { summary_chars, usage } => {
                events::not_smaller(span, summary_chars, model, usage, caller, claim, self.bounded.as_ref())
            }
            CallOutcome::SummaryUncounted { found } => events::invalid_summary_tokens(span, &found, caller, claim),
            CallOutcome::Folded { entry, fold, write_back } => {
                return (self.folded(&fold, &write_back, model, caller, claim), Some(entry));
            }
        };
        (self.decline(declined), None)
    }
}

/// Malformed recall: untouched, explained.
pub fn invalid_input(loaded_len: usize, spot: &InvalidSpot) -> Settled {
    let (reason, evidence) = events::invalid_input(spot);
    Settled {
        recall: (0..loaded_len).map(loaded).collect(),
        event: Some(make_event(loaded_len, loaded_len, Vec::new(), None, reason, evidence)),
    }
}

fn concat_slots(first: &[usize], second: &[usize]) -> Vec<Slot> {
    first.iter().chain(second).map(|&i| loaded(i)).collect()
}

fn make_event(
    input_count: usize,
    output_count: usize,
    dropped: Vec<usize>,
    added: Option<String>,
    reason: String,
    evidence: Evidence,
) -> Event {
    Event { reason, input_count, output_count, dropped, added, evidence, background: false }
}

mod outcome;

pub use outcome::CallOutcome;

#[cfg(test)]
mod tests;
