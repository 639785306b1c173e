use super::*;
use crate::core::config::Shape;
use crate::core::events::Predicted;
use crate::core::format::{label_text, utf16_len};
use crate::core::recall::{partition, SummaryFacts};

fn config(trigger: usize, preserve: usize) -> StageConfig {
    let mut config = StageConfig::new(Shape::Callback);
    config.trigger_min_entries = trigger;
    config.preserve_recent = preserve;
    config
}

fn conversation(turns: usize, per_turn: usize, chars: usize) -> Vec<EntryFacts> {
    (0..turns * per_turn)
        .map(|i| EntryFacts {
            turn: Some((i / per_turn) as f64 + 1.0),
            updated_at: Some(1000.0 + i as f64),
            content_units: chars,
            tokens: chars.div_ceil(4) as f64,
            summary: None,
            covered: false,
            claim: false,
        })
        .collect()
}

/// A callback fold of 50 chars, written back, by the run that called.
fn written_fold(candidate: &Candidate) -> Settled {
    let fold = Fold { summary_chars: 50, ..Fold::default() };
    candidate.folded(&fold, &WriteBack::Written, None, Caller::Leader, &ClaimState::Silent)
}

fn consider(config: &StageConfig, facts: &[EntryFacts]) -> Candidate {
    match plan(config, facts, partition(facts)) {
        Plan::Consider(candidate) => candidate,
        Plan::Settle(settled) => panic!("expected a fold to be considered, got {settled:?}"),
    }
}

#[test]
fn a_summary_passes_only_below_its_span_and_a_pinned_line_stays_below_too() {
    // 10 turns of 2 entries of 100 chars; the newest 4 stay: 16 entries fold.
    let candidate = consider(&config(20, 4), &conversation(10, 2, 100));
    assert_eq!(candidate.span.chars, 1_600);
    assert!(candidate.made_smaller_by(1_599));
    assert!(!candidate.made_smaller_by(1_600), "the same length is not smaller");
    assert_eq!(candidate.room_after(1_500), 99, "a line of 99 leaves the summary at 1,599");
    assert_eq!(candidate.room_after(1_599), 0);
}

#[test]
fn tokens_trigger_keep_whole_turns_and_are_reported_by_the_fold() {
    use crate::core::config::TokenOptions;
    // 10 turns of 2 entries, 25 tokens each: 500 tokens of raw recall.
    let facts = conversation(10, 2, 100);
    let mut tokens = config(100, 5);
    tokens.tokens = Some(TokenOptions { trigger_min: Some(501.0), preserve_recent: Some(60.0), min_fold: 60.0 });
    assert!(matches!(plan(&tokens, &facts, partition(&facts)), Plan::Settle(_)), "500 tokens < 501");
    tokens.tokens = Some(TokenOptions { trigger_min: Some(500.0), preserve_recent: Some(60.0), min_fold: 60.0 });
    let candidate = consider(&tokens, &facts);
    assert_eq!(candidate.raw_span().len(), 16, "two whole turns (100 tokens) hold at least 60");
    let fold = Fold { summary_chars: 50, summary_tokens: Some(12.5), ..Fold::default() };
    let settled = candidate.folded(&fold, &WriteBack::Written, None, Caller::Leader, &ClaimState::Silent);
    let Some(Event { evidence: Evidence::Folded(folded), .. }) = settled.event else { panic!() };
    assert_eq!(
        (folded.recall_tokens_before, folded.recall_tokens_after, folded.span_tokens, folded.summary_tokens),
        (Some(500.0), Some(112.5), Some(400.0), Some(12.5))
    );
    // Without token options, nothing is counted or reported.
    let plain = consider(&config(20, 5), &facts);
    let settled = plain.folded(&fold, &WriteBack::Written, None, Caller::Leader, &ClaimState::Silent);
    let Some(Event { evidence: Evidence::Folded(folded), .. }) = settled.event else { panic!() };
    assert_eq!(folded.recall_tokens_before, None);
}

#[test]
fn below_trigger_settles_unchanged_without_event() {
    let facts = conversation(5, 2, 10);
    let Plan::Settle(settled) = plan(&config(20, 5), &facts, partition(&facts)) else { panic!() };
    assert!(settled.event.is_none());
    assert!(settled.is_unchanged(facts.len()));
}

#[test]
fn span_turns_chars_and_anchor() {
    let facts = conversation(10, 2, 100);
    let candidate = consider(&config(20, 5), &facts);
    // 20 raw, preserve 5 → split at 15, inside turn 8 (entries 14,15) → 14.
    assert_eq!(candidate.folded_indices(), (0..14).collect::<Vec<_>>());
    assert_eq!(candidate.span, SpanFacts { entries: 14, chars: 1400, from_turn: 1.0, to_turn: 7.0 });
    assert_eq!(candidate.anchor, Some(1014.0));
}

#[test]
fn anchor_falls_back_to_now_for_missing_or_non_positive_clocks() {
    let mut facts = conversation(10, 2, 100);
    facts[3].updated_at = None;
    assert_eq!(consider(&config(20, 5), &facts).anchor, None);
    let negative: Vec<EntryFacts> =
        conversation(10, 2, 100).into_iter().map(|f| EntryFacts { updated_at: Some(-50.0), ..f }).collect();
    assert_eq!(consider(&config(20, 5), &negative).anchor, None);
}

#[test]
fn fold_places_the_new_summary_among_summaries_by_to_turn() {
    let mut facts = conversation(10, 2, 100);
    facts.insert(
        0,
        EntryFacts { summary: Some(SummaryFacts { to_turn: 99.0, from_turn: 99.0 }), ..EntryFacts::default() },
    );
    let candidate = consider(&config(20, 4), &facts);
    let settled = written_fold(&candidate);
    assert_eq!(settled.recall[0], Slot::NewSummary, "toTurn 8 sorts before 99");
    assert_eq!(settled.recall[1], loaded(0));
    let event = settled.event.unwrap();
    assert_eq!(event.added.as_deref(), Some("msg-summary-1-8"));
    assert_eq!(event.input_count, 21);
    assert_eq!(event.output_count, settled.recall.len());
    assert_eq!(event.dropped, (1..=16).collect::<Vec<_>>());
}

#[test]
fn claims_never_reach_recall_and_are_dropped() {
    // Below the trigger: the claim alone is left out, and said so.
    let mut facts = conversation(3, 2, 100);
    facts.push(EntryFacts { claim: true, ..EntryFacts::default() });
    let Plan::Settle(settled) = plan(&config(20, 5), &facts, partition(&facts)) else { panic!() };
    assert_eq!(settled.recall, (0..6).map(loaded).collect::<Vec<_>>());
    let event = settled.event.unwrap();
    assert_eq!(event.dropped, [6]);
    assert!(event.reason.starts_with("1 fleet claim left out"), "{}", event.reason);
    // A fold: the claim is neither span nor tail, and is dropped.
    let mut facts = conversation(10, 2, 100);
    facts.insert(3, EntryFacts { claim: true, ..EntryFacts::default() });
    let candidate = consider(&config(20, 4), &facts);
    assert!(!candidate.folded_indices().contains(&3));
    assert_eq!(candidate.claim_id(), "msg-summary-claim-1-8");
    let settled = written_fold(&candidate);
    assert!(!settled.recall.contains(&loaded(3)));
    assert_eq!(settled.event.unwrap().dropped[0], 3);
    let (elsewhere, _) =
        candidate.settle::<()>(CallOutcome::ClaimedElsewhere, None, Caller::Leader, &ClaimState::Silent);
    assert_eq!(elsewhere.recall.len(), 20, "verbatim, without the claim");
    assert!(!elsewhere.recall.contains(&loaded(3)));
    assert!(elsewhere.event.unwrap().reason.contains("msg-summary-claim-1-8"));
}

#[test]
fn label_prediction() {
    let short = consider(&config(4, 1), &conversation(4, 1, 10));
    let predicted =
        short.predicted_refusal(&config(4, 1)).expect("3 entries of 10 chars cannot beat a ~280-char label");
    assert!(predicted.event.unwrap().reason.contains("the label alone is"));
    let long = consider(&config(4, 1), &conversation(4, 1, 1000));
    assert!(long.predicted_refusal(&config(4, 1)).is_none());
    // Turns 1–3, 3 entries folded.
    let header = label_text("a model").followed_by("\n\n").render(&[1.0, 3.0, 3.0]);
    assert_eq!(long.label_chars(), utf16_len(&header));
    assert_eq!(long.summary_id(), "msg-summary-1-3");
    let mut provider = StageConfig::new(Shape::Provider { model: "a much longer model name".into() });
    provider.trigger_min_entries = 4;
    provider.preserve_recent = 1;
    assert_eq!(consider(&provider, &conversation(4, 1, 1000)).label_chars(), long.label_chars() + 17);
}

/// A span of 3 one-entry turns holding `chars` in all, under a config
/// with `maxSummaries` when `beyond` (an option that foresees refusals).
fn span_of(chars: usize, beyond: bool) -> (StageConfig, Candidate) {
    let mut config = config(4, 1);
    config.max_summaries = beyond.then_some(5);
    let mut facts = conversation(4, 1, chars / 3);
    facts[0].content_units += chars % 3;
    let candidate = consider(&config, &facts);
    assert_eq!(candidate.span.chars, chars);
    (config, candidate)
}

#[test]
fn a_foreseeable_refusal_is_declined_only_with_an_option_beyond_the_original() {
    let label = span_of(1000, false).1.label_chars();
    // The span is exactly twice the label: half of it is room, enough.
    let (config, at_edge) = span_of(2 * label, true);
    assert!(at_edge.predicted_refusal(&config).is_none(), "room for half the span: the call is made");
    let (config, below) = span_of(2 * label - 1, true);
    let settled = below.predicted_refusal(&config).expect("one char short of half: no call");
    let event = settled.event.expect("explained");
    assert!(event.reason.starts_with("replacement-not-smaller, no call made:"), "{}", event.reason);
    assert!(event.reason.contains(&format!("room for {} chars", label - 1)), "{}", event.reason);
    assert!(matches!(event.evidence, Evidence::Predicted(Predicted { predicted: true, .. })));
    assert_eq!(settled.recall, (0..4).map(loaded).collect::<Vec<_>>(), "verbatim");
    // The same span without an option beyond the original: called, as the original calls it.
    let (parity, same) = span_of(2 * label - 1, false);
    assert!(same.predicted_refusal(&parity).is_none());
}

#[test]
fn min_fold_tokens_declines_a_raw_span_under_the_floor_while_waiting_loses_no_turn() {
    use crate::core::config::TokenOptions;
    // Turns 1–2, loaded first, and the summary that stands for them;
    // then 10 turns of 2 entries of 25 tokens; the newest 2 turns (100
    // tokens) stay.
    let mut facts = conversation(12, 2, 100);
    let covered = SummaryFacts { from_turn: 1.0, to_turn: 2.0 };
    facts.insert(4, EntryFacts { summary: Some(covered), ..EntryFacts::default() });
    for covered in &mut facts[..4] {
        covered.covered = true;
    }
    let mut config = config(20, 5);
    config.tokens = Some(TokenOptions { preserve_recent: Some(100.0), min_fold: 400.0, ..TokenOptions::default() });
    let candidate = consider(&config, &facts);
    assert_eq!(candidate.raw_span().len(), 16, "400 tokens fold: exactly the floor");
    assert!(candidate.too_few_tokens(&config).is_none());
    config.tokens = Some(TokenOptions { preserve_recent: Some(100.0), min_fold: 401.0, ..TokenOptions::default() });
    let settled = consider(&config, &facts).too_few_tokens(&config).expect("one token short");
    let event = settled.event.expect("explained");
    assert!(event.reason.starts_with("not-worth-a-call-yet, no call made:"), "{}", event.reason);
    assert!(event.reason.contains("400 tokens of new text, under minFoldTokens (401)"), "{}", event.reason);
    assert_eq!(
        serde_json::to_value(&event.evidence).unwrap(),
        serde_json::json!({ "spanEntries": 16, "spanChars": 1600, "summarizerCalled": false, "newTokens": 400.0, "minFoldTokens": 401.0 })
    );
    assert_eq!(settled.recall, (4..25).map(loaded).collect::<Vec<_>>(), "the summary, then verbatim");
    // The oldest loaded entry is one no summary holds: the next turn may
    // push it out of the load window, so the span folds now.
    let uncovered = &facts[5..];
    assert!(consider(&config, uncovered).too_few_tokens(&config).is_none());
    // Without token options there is no floor in tokens.
    assert!(consider(&self::config(20, 5), &facts).too_few_tokens(&self::config(20, 5)).is_none());
}

/// Each message as its content, after 1,000 of instruction.
struct ByLength;

impl Sizer for ByLength {
    fn overhead(&mut self, _: span_bound::SpanBound) -> Result<f64, InvalidSpot> {
        Ok(1_000.0)
    }
    fn entry(
        &mut self,
        _: span_bound::SpanBound,
        _: usize,
        facts: &EntryFacts,
        room: f64,
    ) -> Result<Option<f64>, InvalidSpot> {
        Ok(Some(facts.content_units as f64).filter(|&cost| cost <= room))
    }
    fn cut(
        &mut self,
        _: span_bound::SpanBound,
        _: usize,
        _: &EntryFacts,
        _: f64,
    ) -> Result<Option<span_bound::Cut>, InvalidSpot> {
        Ok(None)
    }
}

#[test]
fn a_summary_too_big_to_roll_in_under_the_bound_waits_and_the_raw_span_folds() {
    use crate::core::span_bound::{BoundUnit, SpanBound};
    // A 3,000-char summary, then 10 turns of 2 entries of 500 chars.
    let mut facts = conversation(11, 2, 500);
    facts[0].summary = Some(SummaryFacts { to_turn: 1.0, from_turn: 1.0 });
    facts[0].content_units = 3_000;
    facts[1].covered = true;
    let mut rolling = config(20, 4);
    rolling.max_summaries = Some(1);
    rolling.max_span = Some(SpanBound { unit: BoundUnit::Chars, max: 11_000.0 });
    let candidate = consider(&rolling, &facts);
    assert_eq!(candidate.rolled_indices(), [0], "without a bound the summary rolls in");
    let Ok(Plan::Consider(bounded)) = candidate.within_bound(&rolling, &facts, &mut ByLength) else {
        panic!("the raw span fits without the summary")
    };
    assert!(bounded.rolled_indices().is_empty(), "with it, 7,000 of room is under the 8,000 a fold needs");
    assert_eq!(bounded.raw_span().len(), 16, "10,000 of room holds the 16 raw entries up to the seam");
    assert_eq!(bounded.bounded.as_ref().map(|b| b.sent), Some(9_000.0));
}
