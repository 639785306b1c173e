use super::*;

static NO_AUDIT: Audit = Audit { kept: 0, pinned: None, dropped: Vec::new() };

const SPAN: SpanFacts = SpanFacts { entries: 3, chars: 120, from_turn: 1.0, to_turn: 2.0 };

#[test]
fn reasons_carry_their_stable_tokens() {
    assert_eq!(covered_only(1, 1, 0).0, "1 entry already covered by 1 stored summary \u{2014} no new call this turn");
    assert_eq!(
        covered_only(4, 2, 0).0,
        "4 entries already covered by 2 stored summaries \u{2014} no new call this turn"
    );
    assert!(latched(SPAN, None).0.contains("not re-asked"));
    let (reason, _) = failed(SPAN, Some("m"), Caller::Leader, "boom", &ClaimState::Silent, Sent::default());
    assert!(reason.contains("summarizer-failed") && reason.contains("verbatim") && reason.ends_with("Cause: boom"));
    let (reason, _) = failed(SPAN, None, Caller::Follower, "boom", &ClaimState::Silent, Sent::default());
    assert!(reason.ends_with("Cause: boom"), "{reason}");
    let (reason, _) = not_smaller(SPAN, 130, None, None, Caller::Leader, &ClaimState::Silent, None);
    assert!(reason.contains("replacement-not-smaller") && reason.contains("130") && reason.contains("120"));
    let (reason, _) = predicted_not_smaller(SPAN, 300);
    assert!(reason.contains("replacement-not-smaller") && reason.contains("no call made"));
}

/// Every reason word for word, one span in the singular with a
/// fractional turn, so each piece of each sentence is pinned.
#[test]
fn every_reason_reads_in_full() {
    let one = SpanFacts { entries: 1, chars: 9, from_turn: 2.5, to_turn: 3.0 };
    let coalesced = " (coalesced: a concurrent run over the same span made the one call; this run waited for it)";
    assert_eq!(
        latched(one, None).0,
        "the span of 1 entry (turns 2.5\u{2013}3, 9 chars) was refused before (as replacement-not-smaller, or a \
summary countTokens could not count) and is not re-asked: the same span gives the same answer, so recall is served \
verbatim"
    );
    assert_eq!(
        predicted_not_smaller(SPAN, 300).0,
        "replacement-not-smaller, no call made: the label alone is 300 chars, no shorter than the span of 3 entries \
(turns 1\u{2013}2, 120 chars) it would replace, so no summary could make recall smaller; recall is served verbatim"
    );
    assert_eq!(
        failed(SPAN, None, Caller::Leader, "boom", &ClaimState::Silent, Sent::default()).0,
        "summarizer-failed for the span of 3 entries (turns 1\u{2013}2, 120 chars): recall is served verbatim and \
the turn goes on. Cause: boom"
    );
    assert_eq!(
        failed(SPAN, None, Caller::Follower, "boom", &ClaimState::Silent, Sent::default()).0,
        format!(
            "summarizer-failed for the span of 3 entries (turns 1\u{2013}2, 120 chars): recall is served verbatim \
and the turn goes on{coalesced}. Cause: boom"
        )
    );
    assert_eq!(
        not_smaller(SPAN, 130, None, None, Caller::Follower, &ClaimState::Silent, None).0,
        format!(
            "replacement-not-smaller: the summary with its label is 130 chars and the span of 3 entries \
(turns 1\u{2013}2, 120 chars) is 120 chars, so folding would grow recall; the span is latched and served \
verbatim{coalesced}"
        )
    );
    let not_latched = "not latched: the identity names no conversation (that takes a string or number \
conversationId, with tenant and principal absent, strings or numbers), so the same span may be asked again";
    assert_eq!(
        not_smaller(SPAN, 130, None, None, Caller::Alone, &ClaimState::Silent, None).0,
        format!(
            "replacement-not-smaller: the summary with its label is 130 chars and the span of 3 entries \
(turns 1\u{2013}2, 120 chars) is 120 chars, so folding would grow recall; the span is served verbatim and \
{not_latched}"
        )
    );
    assert_eq!(
        invalid_summary_tokens(SPAN, "a string (\"many\")", Caller::Leader, &ClaimState::Silent).0,
        format!(
            "invalid-input: countTokens returned a string (\"many\") for the summary of the span of 3 entries \
(turns 1\u{2013}2, 120 chars) (expected {TOKEN_COUNT_EXPECTED}); the summary is not used: recall is served verbatim, \
nothing is written and the span is latched. Fix the `countTokens` option"
        )
    );
    assert_eq!(
        invalid_summary_tokens(SPAN, "NaN", Caller::Alone, &ClaimState::Silent).0,
        format!(
            "invalid-input: countTokens returned NaN for the summary of the span of 3 entries (turns \
1\u{2013}2, 120 chars) (expected {TOKEN_COUNT_EXPECTED}); the summary is not used: recall is served verbatim, \
nothing is written and the span is {not_latched}. Fix the `countTokens` option"
        )
    );
}

#[test]
fn every_fold_reason_reads_in_full() {
    let one = SpanFacts { entries: 1, chars: 9, from_turn: 2.5, to_turn: 3.0 };
    let coalesced = " (coalesced: a concurrent run over the same span made the one call; this run waited for it)";
    let report = |write_back, caller| FoldReport {
        bounded: None,
        span: one,
        rolled: 0,
        kept: 1,
        summary_id: "msg-summary-2.5-3",
        summary_chars: 8,
        write_back,
        model: None,
        usage: None,
        caller,
        claim: &ClaimState::Silent,
        audit: &NO_AUDIT,
        tokens: None,
    };
    assert_eq!(
        folded(report(&WriteBack::NoStore, Caller::Leader)).0,
        "folded 1 entry (turns 2.5\u{2013}3) into msg-summary-2.5-3; 1 kept verbatim \u{2014} not written back \
(no store configured), so this fold is paid for every turn"
    );
    assert_eq!(
        folded(report(&WriteBack::Failed("disk full".into()), Caller::Follower)).0,
        format!(
            "folded 1 entry (turns 2.5\u{2013}3) into msg-summary-2.5-3; 1 kept verbatim \u{2014} write-back \
FAILED (disk full), so this fold will be paid again{coalesced}"
        )
    );
}

#[test]
fn fold_reason_names_the_write_back() {
    let report = |write_back| FoldReport {
        bounded: None,
        span: SPAN,
        kept: 5,
        summary_id: "msg-summary-1-2",
        rolled: 0,
        summary_chars: 80,
        write_back,
        model: None,
        usage: None,
        caller: Caller::Leader,
        claim: &ClaimState::Silent,
        audit: &NO_AUDIT,
        tokens: None,
    };
    assert_eq!(
        folded(report(&WriteBack::Written)).0,
        "folded 3 entries (turns 1\u{2013}2) into msg-summary-1-2; 5 kept verbatim \u{2014} written back, so this span is not summarized again"
    );
    assert!(folded(report(&WriteBack::NoStore)).0.contains("no store configured"));
    assert!(folded(report(&WriteBack::Failed("disk full".into()))).0.contains("write-back FAILED (disk full)"));
}

#[test]
fn claim_reasons_and_evidence_name_the_claim() {
    let json = |evidence: Evidence| serde_json::to_string(&evidence).unwrap();
    let (reason, evidence) = claimed_elsewhere(SPAN, "msg-summary-claim-1-2");
    assert!(reason.starts_with("summarized-elsewhere: another process holds the claim msg-summary-claim-1-2"));
    assert!(reason.contains("no call was made") && reason.contains("verbatim"), "{reason}");
    assert_eq!(
        json(evidence),
        r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":false,"claimId":"msg-summary-claim-1-2","claimedElsewhere":true}"#
    );
    let (reason, evidence) = claim_failed(SPAN, "msg-summary-claim-1-2", "ECONNREFUSED");
    assert!(reason.starts_with("claim-failed:") && reason.ends_with("Cause: ECONNREFUSED"), "{reason}");
    assert!(json(evidence).ends_with(r#""claimId":"msg-summary-claim-1-2","claimFailed":true}"#));
    let released = |given_up| ClaimState::Released { id: "msg-summary-claim-1-2".into(), given_up };
    let (reason, evidence) = failed(SPAN, None, Caller::Leader, "HTTP 500", &released(GiveUp::Done), Sent::default());
    assert!(reason.contains("claimed for the fleet as msg-summary-claim-1-2") && reason.contains("is given up"));
    assert!(json(evidence).ends_with(r#""failed":true,"claimId":"msg-summary-claim-1-2","claimGivenUp":true}"#));
    let (reason, _) = failed(SPAN, None, Caller::Leader, "HTTP 500", &released(GiveUp::Refused), Sent::default());
    assert!(reason.contains("refused to give its claim up") && reason.ends_with("Cause: HTTP 500"), "{reason}");
    let (reason, evidence) = failed(
        SPAN,
        None,
        Caller::Leader,
        "HTTP 500",
        &released(GiveUp::Failed("timed out after 5 ms".into())),
        Sent::default(),
    );
    assert!(reason.contains("giving its claim up failed (timed out after 5 ms)"), "{reason}");
    assert!(json(evidence).ends_with(r#""claimGivenUp":false}"#));
    let (reason, evidence) = unreadable_span(SPAN, "gather its messages", &released(GiveUp::Done));
    assert!(reason.contains("is given up") && reason.ends_with("to the store"), "{reason}");
    assert!(
        json(evidence).ends_with(r#""summarizerCalled":false,"claimId":"msg-summary-claim-1-2","claimGivenUp":true}"#)
    );
    let held = ClaimState::Held("msg-summary-claim-1-2".into());
    let (reason, _) = not_smaller(SPAN, 130, None, None, Caller::Leader, &held, None);
    assert!(reason.contains("claimed for the fleet") && !reason.contains("given up"), "{reason}");
    let (reason, evidence) = not_smaller(SPAN, 130, None, None, Caller::Leader, &ClaimState::Unsupported, None);
    assert!(reason.contains("no putIfVersion"), "{reason}");
    assert!(json(evidence).ends_with(r#""claimsUnsupported":true}"#));
    assert_eq!(covered_only(0, 0, 1).0, "1 fleet claim left out of recall \u{2014} no new call this turn");
    assert_eq!(
        covered_only(2, 1, 2).0,
        "2 entries already covered by 1 stored summary, and 2 fleet claims left out of recall \u{2014} no new \
call this turn"
    );
}

#[test]
fn warnings_name_the_strategy_the_cause_and_what_happens_next() {
    let failed = warning::summarizer_failed("mem-a", "HTTP 500");
    for needle in ["mem-a", "HTTP 500", "verbatim", "turn is not failed"] {
        assert!(failed.contains(needle), "{failed}");
    }
    let refused = warning::store_refused("mem-b", "disk full");
    for needle in ["mem-b", "disk full", "next turn pays"] {
        assert!(refused.contains(needle), "{refused}");
    }
    assert_eq!(warning::declined("mem-c", "invalid-input: x"), "[footprint-summarize] mem-c: invalid-input: x");
    let refused = warning::recall_refused("mem-d", "object is not extensible");
    for needle in ["mem-d", "scope.loaded refused", "object is not extensible", "recall as loaded"] {
        assert!(refused.contains(needle), "{refused}");
    }
}

#[test]
fn only_the_run_that_called_reports_usage() {
    let usage = Some(Usage { input: Some(10.0), output: Some(2.0) });
    let Evidence::NotSmaller(leader) =
        not_smaller(SPAN, 500, None, usage.clone(), Caller::Leader, &ClaimState::Silent, None).1
    else {
        panic!()
    };
    assert_eq!(leader.usage, usage);
    let Evidence::NotSmaller(alone) =
        not_smaller(SPAN, 500, None, usage.clone(), Caller::Alone, &ClaimState::Silent, None).1
    else {
        panic!()
    };
    assert_eq!((alone.usage, alone.summarizer_called, alone.coalesced), (usage.clone(), true, None));
    let Evidence::NotSmaller(follower) =
        not_smaller(SPAN, 500, None, usage, Caller::Follower, &ClaimState::Silent, None).1
    else {
        panic!()
    };
    assert_eq!((follower.usage, follower.summarizer_called, follower.coalesced), (None, false, Some(true)));
}

/// SPEC §4's key orders, with absent options left out.
#[test]
fn evidence_json_keeps_spec_key_order() {
    let usage = Some(Usage { input: Some(1200.0), output: Some(0.5) });
    let report = |caller| FoldReport {
        bounded: None,
        span: SPAN,
        kept: 5,
        summary_id: "msg-summary-1-2",
        rolled: 0,
        summary_chars: 80,
        write_back: &WriteBack::Written,
        model: Some("mini \"m\""),
        usage: usage.clone(),
        caller,
        claim: &ClaimState::Silent,
        audit: &NO_AUDIT,
        tokens: None,
    };
    let cases = [
        (covered_only(2, 1, 0).1, r#"{"summarizerCalled":false}"#),
        (latched(SPAN, None).1, r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":false,"latched":true}"#),
        (
            predicted_not_smaller(SPAN, 300).1,
            r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":false,"labelChars":300,"predicted":true}"#,
        ),
        (
            failed(SPAN, None, Caller::Follower, "x", &ClaimState::Silent, Sent::default()).1,
            r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":false,"failed":true,"coalesced":true}"#,
        ),
        (
            not_smaller(SPAN, 130, Some("mini"), usage.clone(), Caller::Leader, &ClaimState::Silent, None).1,
            r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":true,"summaryChars":130,"model":"mini","usage":{"input":1200,"output":0.5}}"#,
        ),
        (
            folded(report(Caller::Leader)).1,
            r#"{"summarizerCalled":true,"spanEntries":3,"spanChars":120,"summaryChars":80,"persisted":true,"model":"mini \"m\"","usage":{"input":1200,"output":0.5},"detailsFound":0,"detailsKept":0,"droppedDetails":[],"droppedDetailCount":0}"#,
        ),
        (
            folded(report(Caller::Follower)).1,
            r#"{"summarizerCalled":false,"spanEntries":3,"spanChars":120,"summaryChars":80,"persisted":true,"model":"mini \"m\"","coalesced":true,"detailsFound":0,"detailsKept":0,"droppedDetails":[],"droppedDetailCount":0}"#,
        ),
        (invalid_clock("NaN").1, r#"{"summarizerCalled":false,"invalidField":"now"}"#),
    ];
    for (evidence, expected) in cases {
        assert_eq!(json(&evidence), expected);
    }
    let spot = InvalidSpot { index: Some(0), field: "id".into(), ..InvalidSpot::default() };
    assert_eq!(json(&invalid_input(&spot).1), r#"{"summarizerCalled":false,"invalidIndex":0,"invalidField":"id"}"#);
    let usage = Usage { input: Some(f64::NAN), output: None };
    let evidence = not_smaller(SPAN, 130, None, Some(usage), Caller::Leader, &ClaimState::Silent, None).1;
    assert!(json(&evidence).ends_with(r#""usage":{"input":null}}"#));
}

/// Evidence as JSON text, to compare key orders as text (serde_json
/// writes a float with its `.0`, as JS does not).
fn json(evidence: &Evidence) -> String {
    serde_json::to_string(evidence).expect("evidence serializes").replace(".0,", ",").replace(".0}", "}")
}

#[test]
fn a_long_cause_is_cut_at_a_character_and_says_how_long_it_was() {
    assert_eq!(bounded_cause("HTTP 500".into()), "HTTP 500");
    let exact = "x".repeat(MAX_CAUSE_CHARS);
    assert_eq!(bounded_cause(exact.clone()), exact);
    // An emoji is two UTF-16 units: the cut never splits one.
    let long = format!("{}😀😀", "x".repeat(MAX_CAUSE_CHARS - 1));
    assert_eq!(bounded_cause(long), format!("{}\u{2026} (1003 chars in all)", "x".repeat(MAX_CAUSE_CHARS - 1)));
}

#[test]
fn invalid_input_names_index_and_field() {
    let spot = InvalidSpot {
        index: Some(3),
        field: "value.content".into(),
        found: "a number (42)".into(),
        expected: "a string, null or absent".into(),
    };
    let (reason, evidence) = invalid_input(&spot);
    assert!(reason.starts_with("invalid-input: loaded[3].value.content is a number (42)"), "{reason}");
    assert_eq!(
        evidence,
        Evidence::InvalidInput(InvalidInput {
            summarizer_called: false,
            invalid_index: Some(3),
            invalid_field: "value.content".into()
        })
    );
    let five: Vec<String> = (1..=5).map(|n| format!("s{n}")).collect();
    let (reason, _) = invalid_input(&InvalidSpot::covered_in_a_cycle(2, &five));
    assert!(
        reason.starts_with(
            "invalid-input: loaded[2] is covered only by summaries that cover one another (s1, s2, s3 and 2 more)"
        ),
        "{reason}"
    );
}
