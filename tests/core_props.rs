//! Property tests of the pure core (native `cargo test`): for any recall and
//! any config, nothing is lost, recall is either unchanged or summaries then
//! the kept entries, and the seam never splits a turn.
#![cfg(not(target_arch = "wasm32"))]

use footprint_summarize::core::config::{Shape, StageConfig, TokenOptions};
use footprint_summarize::core::decision::{plan, CallOutcome, Candidate, Fold, Plan, Settled, Slot};
use footprint_summarize::core::details;
use footprint_summarize::core::events::{Caller, ClaimState, WriteBack};
use footprint_summarize::core::recall::{partition, EntryFacts, SummaryFacts};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Recall {
    ids: Vec<String>,
    facts: Vec<EntryFacts>,
    /// Covered ids of each summary, in entry order.
    covered: Vec<Vec<String>>,
}

impl Recall {
    /// The facts as the reader marks them: an entry is covered when another
    /// summary's coveredIds names its id.
    fn facts(&self) -> Vec<EntryFacts> {
        (0..self.facts.len())
            .map(|index| {
                let id = &self.ids[index];
                let own = self.facts[index].summary.is_some().then(|| self.position_of(index));
                let covered =
                    self.covered.iter().enumerate().any(|(list, names)| Some(list) != own && names.contains(id));
                EntryFacts { covered, ..self.facts[index].clone() }
            })
            .collect()
    }

    fn position_of(&self, summary: usize) -> usize {
        self.facts[..summary].iter().filter(|f| f.summary.is_some()).count()
    }

    fn covered_by(&self, index: usize) -> &[String] {
        &self.covered[self.position_of(index)]
    }
}

/// Raw entries over non-decreasing turns (some undefined), fleet claims
/// anywhere, plus summaries that cover random ids (existing or not) and sit
/// anywhere.
fn recall() -> impl Strategy<Value = Recall> {
    (
        prop::collection::vec((0u8..4, any::<bool>(), 0usize..400), 0..40),
        prop::collection::vec((0usize..40, prop::collection::vec(0usize..50, 0..8), -2.0f64..30.0), 0..4),
        prop::collection::vec(0usize..40, 0..3),
    )
        .prop_map(|(raw, summaries, claims)| {
            let mut turn = 1.0;
            let mut ids = Vec::new();
            let mut facts = Vec::new();
            for (k, (step, has_turn, chars)) in raw.into_iter().enumerate() {
                turn += f64::from(step / 2);
                ids.push(format!("m{k}😀"));
                facts.push(EntryFacts {
                    turn: has_turn.then_some(turn),
                    updated_at: Some(k as f64),
                    content_units: chars,
                    tokens: chars.div_ceil(4) as f64,
                    summary: None,
                    covered: false,
                    claim: false,
                });
            }
            for (c, at) in claims.into_iter().enumerate() {
                let at = at.min(facts.len());
                ids.insert(at, format!("claim-{c}"));
                facts.insert(at, EntryFacts { claim: true, ..EntryFacts::default() });
            }
            let mut covered = Vec::new();
            for (s, (at, names, to_turn)) in summaries.into_iter().enumerate() {
                let at = at.min(facts.len());
                let names: Vec<String> = names.into_iter().map(|n| format!("m{n}😀")).collect();
                ids.insert(at, format!("summary-{s}"));
                let summary = SummaryFacts { to_turn, from_turn: to_turn - 1.0 };
                facts.insert(at, EntryFacts { summary: Some(summary), ..EntryFacts::default() });
                // Covered ids are listed in entry order of their summaries.
                let position = facts[..at].iter().filter(|f| f.summary.is_some()).count();
                covered.insert(position, names);
            }
            Recall { ids, facts, covered }
        })
}

fn config() -> impl Strategy<Value = StageConfig> {
    let tokens = prop::option::of((prop::option::of(0u32..800), prop::option::of(0u32..400)));
    (0usize..30, 0usize..10, 0usize..6, prop::option::of(1usize..4), prop::option::of(0usize..3000), tokens).prop_map(
        |(trigger, preserve, min_fold, max_summaries, trigger_min_chars, tokens)| {
            let mut config = StageConfig::new(Shape::Callback);
            config.trigger_min_entries = trigger;
            config.preserve_recent = preserve;
            config.min_fold_entries = min_fold;
            config.max_summaries = max_summaries;
            config.trigger_min_chars = trigger_min_chars;
            config.tokens = tokens.map(|(trigger_min, preserve_recent)| TokenOptions {
                trigger_min: trigger_min.map(f64::from),
                preserve_recent: preserve_recent.map(f64::from),
                min_fold: preserve_recent.map_or(0.0, f64::from),
            });
            config
        },
    )
}

/// A run's settling from a call's outcome that brings no new summary.
fn settle(candidate: &Candidate, outcome: CallOutcome<()>, caller: Caller) -> Settled {
    candidate.settle(outcome, None, caller, &ClaimState::Silent).0
}

/// Every outcome a visit can settle to, for the plan of this recall.
fn outcomes(recall: &Recall, config: &StageConfig) -> Vec<(Settled, Vec<String>)> {
    let facts = recall.facts();
    match plan(config, &facts, partition(&facts)) {
        Plan::Settle(settled) => vec![(settled, Vec::new())],
        Plan::Consider(candidate) => {
            let span_ids: Vec<String> = candidate.folded_indices().iter().map(|&i| recall.ids[i].clone()).collect();
            let declined_before_a_call =
                candidate.predicted_refusal(config).into_iter().chain(candidate.too_few_tokens(config));
            let mut outcomes: Vec<(Settled, Vec<String>)> =
                declined_before_a_call.map(|settled| (settled, Vec::new())).collect();
            outcomes.extend([
                (candidate.latched(), Vec::new()),
                (
                    settle(&candidate, CallOutcome::Failed { cause: "x".into(), sent_chars: None }, Caller::Leader),
                    Vec::new(),
                ),
                (
                    settle(&candidate, CallOutcome::NotSmaller { summary_chars: 10, usage: None }, Caller::Follower),
                    Vec::new(),
                ),
                (settle(&candidate, CallOutcome::ClaimedElsewhere, Caller::Leader), Vec::new()),
                (settle(&candidate, CallOutcome::ClaimFailed { cause: "x".into() }, Caller::Leader), Vec::new()),
                (
                    candidate.folded(
                        &Fold { summary_chars: 10, ..Fold::default() },
                        &WriteBack::Written,
                        None,
                        Caller::Leader,
                        &ClaimState::Silent,
                    ),
                    span_ids,
                ),
            ]);
            outcomes
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every input id is in recall, or named by a summary in recall,
    /// directly or through a summary it names.
    #[test]
    fn nothing_is_lost(recall in recall(), config in config()) {
        for (settled, new_summary_covers) in outcomes(&recall, &config) {
            let mut present: Vec<&str> = Vec::new();
            let mut named: Vec<&str> = Vec::new();
            for &slot in &settled.recall {
                match slot.loaded_index() {
                    None => named.extend(new_summary_covers.iter().map(String::as_str)),
                    Some(index) => named.push(&recall.ids[index]),
                }
            }
            while let Some(id) = named.pop() {
                if present.contains(&id) {
                    continue;
                }
                present.push(id);
                for (index, candidate) in recall.ids.iter().enumerate() {
                    if candidate == id && recall.facts[index].summary.is_some() {
                        named.extend(recall.covered_by(index).iter().map(String::as_str));
                    }
                }
            }
            // A claim is the store's bookkeeping, not an entry of the conversation.
            for (id, _) in recall.ids.iter().zip(&recall.facts).filter(|(_, fact)| !fact.claim) {
                prop_assert!(present.contains(&id.as_str()), "{} lost", id);
            }
        }
    }

    /// A claim never reaches recall, and every claim left out is in `droppedIds`.
    #[test]
    fn claims_never_reach_recall(recall in recall(), config in config()) {
        for (settled, _) in outcomes(&recall, &config) {
            for index in settled.recall.iter().filter_map(|slot| slot.loaded_index()) {
                prop_assert!(!recall.facts[index].claim, "claim {} in recall", recall.ids[index]);
            }
            if let Some(event) = &settled.event {
                for (index, _) in recall.facts.iter().enumerate().filter(|(_, f)| f.claim) {
                    prop_assert!(event.dropped.contains(&index), "claim {} not in droppedIds", recall.ids[index]);
                }
            } else {
                prop_assert!(!recall.facts.iter().any(|f| f.claim), "a claim left out without an event");
            }
        }
    }

    /// With `maxSummaries`, a fold leaves at most that many summaries in recall.
    #[test]
    fn a_rolling_fold_leaves_at_most_max_summaries(recall in recall(), config in config()) {
        let Some(max) = config.max_summaries else { return Ok(()) };
        let facts = recall.facts();
        if let Plan::Consider(candidate) = plan(&config, &facts, partition(&facts)) {
            let settled = candidate.folded(&Fold { summary_chars: 10, ..Fold::default() }, &WriteBack::Written, None, Caller::Leader, &ClaimState::Silent);
            let summaries = settled
                .recall
                .iter()
                .filter(|s| s.loaded_index().is_none_or(|index| recall.facts[index].summary.is_some()))
                .count();
            prop_assert!(summaries <= max, "{} summaries, max {}", summaries, max);
        }
    }

    #[test]
    fn recall_is_unchanged_or_summaries_then_kept_entries(recall in recall(), config in config()) {
        for (settled, _) in outcomes(&recall, &config) {
            if settled.is_unchanged(recall.facts.len()) {
                continue;
            }
            let is_summary = |slot: Slot| slot.loaded_index().is_none_or(|index| recall.facts[index].summary.is_some());
            let first_raw = settled.recall.iter().position(|&s| !is_summary(s)).unwrap_or(settled.recall.len());
            prop_assert!(settled.recall[first_raw..].iter().all(|&s| !is_summary(s)), "summaries come first");
            let raw: Vec<usize> = settled.recall[first_raw..].iter().filter_map(|s| s.loaded_index()).collect();
            prop_assert!(raw.windows(2).all(|w| w[0] < w[1]), "kept entries keep their order");
            let to_turns: Vec<f64> = settled.recall[..first_raw]
                .iter()
                .filter_map(|s| s.loaded_index())
                .map(|index| recall.facts[index].summary.as_ref().unwrap().to_turn)
                .collect();
            prop_assert!(to_turns.windows(2).all(|w| w[0] <= w[1]), "summaries sorted by toTurn");
            if let Some(event) = &settled.event {
                prop_assert_eq!(event.output_count, settled.recall.len());
                prop_assert_eq!(event.input_count, recall.facts.len());
            }
        }
    }

    #[test]
    fn the_seam_never_splits_a_turn(recall in recall(), config in config()) {
        let facts = recall.facts();
        let part = partition(&facts);
        let raw = part.raw.clone();
        if let Plan::Consider(candidate) = plan(&config, &facts, part) {
            let span = candidate.raw_span();
            prop_assert!(!span.is_empty());
            prop_assert_eq!(span, &raw[..span.len()]);
            if let (Some(&last), Some(&first_kept)) = (span.last(), raw.get(span.len())) {
                let (a, b) = (recall.facts[last].turn, recall.facts[first_kept].turn);
                prop_assert!(a.is_none() || a != b, "turn {:?} split across the seam", a);
            }
            // preserveRecentTokens: the tail holds enough, and without its oldest turn it would not.
            if let Some(min) = config.tokens.and_then(|tokens| tokens.preserve_recent) {
                let tail = &raw[span.len()..];
                let tokens = |entries: &[usize]| entries.iter().map(|&i| recall.facts[i].tokens).sum::<f64>();
                prop_assert!(tokens(tail) >= min, "tail of {} tokens < {}", tokens(tail), min);
                if let Some(&oldest) = tail.first() {
                    let turn = recall.facts[oldest].turn;
                    let same_turn = tail.iter().take_while(|&&i| turn.is_some() && recall.facts[i].turn == turn).count();
                    prop_assert!(tokens(&tail[same_turn.max(1)..]) < min, "more turns kept than {} tokens need", min);
                }
            }
        }
    }
}

proptest! {
    /// Integers below 2^53 are written in plain digits, and every finite
    /// number reads back as itself (JS's `String` is a shortest round trip).
    #[test]
    fn js_numbers_are_plain_digits_below_2_53_and_round_trip(integer in -(1i64 << 53) + 1..(1i64 << 53), bits in any::<u64>()) {
        use footprint_summarize::core::js_number::js_number_to_string;
        let text = js_number_to_string(integer as f64);
        prop_assert!(text.bytes().all(|b| b.is_ascii_digit() || b == b'-'), "{}", text);
        prop_assert_eq!(text.parse::<i64>().unwrap(), integer);
        let x = f64::from_bits(bits);
        prop_assume!(x.is_finite());
        let text = js_number_to_string(x);
        prop_assert_eq!(text.replace("e+", "e").parse::<f64>().unwrap(), if x == 0.0 { 0.0 } else { x }, "{}", text);
    }
}

/// The randomized JS suite's text pieces (tests/js/randomized/scenario.mjs)
/// that carry no exact detail: prose, accents, CJK, emoji, RTL, controls.
const PROSE_PIECES: &[&str] = &[
    "refund",
    "Alice",
    "ok",
    "yes,",
    "no.",
    "the",
    "plan",
    "we",
    "agreed",
    "café",
    "naïve",
    "Zürich",
    "São Paulo",
    "e\u{301}",
    "Ångström",
    "piñata",
    "Œuvre",
    "漢字",
    "日本語のテキスト",
    "한국어",
    "中文摘要",
    "ｆｕｌｌｗｉｄｔｈ",
    "😀",
    "𝄞",
    "🚀",
    "𠜎",
    "🇯🇵",
    "🤖",
    "👨‍👩‍👧‍👦",
    "🧑🏽‍🚀",
    "🏳️‍🌈",
    "👩‍💻",
    "❤️",
    "שלום",
    "مرحبا",
    "\u{200b}",
    "\u{a0}",
    "\n",
    "\t",
    "\u{2028}",
    "\u{0}",
    "—",
    "–",
    "\"quoted\"",
    "back\\slash",
    "{\"json\":1}",
];
/// Its pieces that do carry one, as the audit writes them.
const DETAIL_PIECES: &[&str] = &["order #4411", "paid $42.50", "on 2024-03-01"];

fn prose() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(PROSE_PIECES), 0..80)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn prose_has_no_details_and_planted_ones_are_all_found(
        pieces in prose(),
        joiner in prop::sample::select(&[" ", "", "\n"][..]),
        planted in prop::collection::vec((prop::sample::select(DETAIL_PIECES), any::<prop::sample::Index>()), 0..4),
    ) {
        let text = pieces.join(joiner);
        prop_assert_eq!(details::find(&text), Vec::<String>::new(), "{:?}", text);
        let mut with_details: Vec<&str> = pieces.clone();
        for (piece, at) in &planted {
            with_details.insert(at.index(with_details.len() + 1), piece);
        }
        let text = with_details.join(" ");
        let found = details::find(&text);
        let expected: Vec<String> = with_details
            .iter()
            .filter(|piece| DETAIL_PIECES.contains(piece))
            .map(|piece| piece.split_once(' ').unwrap().1.to_owned())
            .collect();
        prop_assert_eq!(found, expected, "{:?}", text);
    }
}
