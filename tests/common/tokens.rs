//! Budgets in tokens: `countTokens`, `triggerMinTokens` and
//! `preserveRecentTokens`, the token evidence of a fold, and counters that
//! give no count.

use super::*;

/// A counter of space-separated words that records every text it is given.
fn word_counter() -> JsValue {
    eval("(() => { const counter = (text) => { counter.texts.push(text); return text.split(' ').length; }; counter.texts = []; return counter; })()")
}

fn words(text: &str) -> f64 {
    text.split(' ').count() as f64
}

fn recall_of(result: &JsValue) -> Vec<String> {
    serde_json::from_str(&ids(&get(result, "recall"))).unwrap()
}

#[wasm_bindgen_test]
async fn token_options_trigger_keep_whole_turns_and_the_fold_reports_tokens_counted_once() {
    let loaded = conversation(6, 2, 100, "c1");
    let tokens: Vec<f64> = (0..12).map(|i| words(&content_at(&loaded, i))).collect();
    let total: f64 = tokens.iter().sum();
    // The newest turn (6) is one token short: turn 5 is kept whole too.
    let preserve = tokens[10] + tokens[11] + 1.0;
    let identity = js(&json!({ "conversationId": "c1" }));

    let counter = word_counter();
    let options =
        json!({ "triggerMinEntries": 100, "triggerMinTokens": total + 1.0, "preserveRecentTokens": preserve });
    let f = Fixture::with_functions(json!({}), options, &[("countTokens", counter.clone())]);
    let result = f.fold(&loaded, &identity).await;
    assert_eq!(f.call_count(), 0, "one token short of the trigger: no fold");
    assert_eq!(get(&result, "events").unchecked_into::<Array>().length(), 0);

    let counter = word_counter();
    let options = json!({ "triggerMinEntries": 100, "triggerMinTokens": total, "preserveRecentTokens": preserve });
    let f = Fixture::with_functions(json!({}), options, &[("countTokens", counter.clone())]);
    let result = f.fold(&loaded, &identity).await;
    assert_eq!(f.call_count(), 1);
    assert_eq!(recall_of(&result), ["msg-summary-1-4", "msg-5-0", "msg-5-1", "msg-6-0", "msg-6-1"]);
    let summary_content = content_at(&get(&result, "recall"), 0);
    let evidence = first_evidence(&result);
    let span: f64 = tokens[..8].iter().sum();
    assert_eq!(evidence["recallTokensBefore"], total, "{evidence}");
    assert_eq!(evidence["spanTokens"], span);
    assert_eq!(evidence["summaryTokens"], words(&summary_content));
    assert_eq!(evidence["recallTokensAfter"], total - span + words(&summary_content));
    // Each entry's text once, then the summary's.
    let texts: Vec<String> = serde_json::from_str(&to_json(&get(&counter, "texts"))).unwrap();
    let expected: Vec<String> = (0..12).map(|i| content_at(&loaded, i)).chain([summary_content]).collect();
    assert_eq!(texts, expected);
}

#[wasm_bindgen_test]
async fn without_a_counter_a_token_option_counts_a_quarter_of_the_utf16_length() {
    let loaded = eval(
        "[1, 2, 3, 4].flatMap((turn) => [
           { id: `u${turn}`, value: { role: 'user', content: '注文番号は123です。配送先を変更したい 👨‍👩‍👧‍👦'.repeat(3 * turn) }, source: { turn } },
           { id: `a${turn}`, value: { role: 'assistant', content: 'Noted, the address changes today. '.repeat(4) }, source: { turn } },
         ])",
    );
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 100, "triggerMinTokens": 10, "preserveRecent": 2 }));
    let result = f.fold(&loaded, &js(&json!({ "conversationId": "c1" }))).await;
    let quarter = |text: &str| (utf16_len(text) as f64 / 4.0).ceil();
    let before: f64 = (0..8).map(|i| quarter(&content_at(&loaded, i))).sum();
    let summary = content_at(&get(&result, "recall"), 0);
    let evidence = first_evidence(&result);
    assert_eq!(evidence["recallTokensBefore"], before, "{evidence}");
    assert_eq!(evidence["summaryTokens"], quarter(&summary));
}

#[wasm_bindgen_test]
async fn a_counter_that_gives_no_count_for_an_entry_leaves_recall_untouched_with_no_call() {
    let identity = js(&json!({ "conversationId": "c1" }));
    for (counter, found) in [
        ("(text) => { throw new Error('tokenizer not loaded'); }", "nothing (it threw: tokenizer not loaded)"),
        ("(text) => NaN", "a number (NaN)"),
        ("(text) => -1", "a number (-1)"),
        ("(text) => Infinity", "a number (Infinity)"),
        ("(text) => '3'", "a string (\"3\")"),
        ("(text) => undefined", "undefined"),
        ("(text) => text.includes('message 1') ? 2n : 1", "a bigint"),
    ] {
        let loaded = conversation(6, 2, 100, "c1");
        let f = Fixture::with_functions(
            json!({}),
            json!({ "triggerMinEntries": 4, "triggerMinTokens": 1 }),
            &[("countTokens", eval(&format!("({counter})")))],
        );
        let result = f.fold(&loaded, &identity).await;
        assert!(same(&get(&result, "recall"), &loaded), "{counter}: recall is the caller's own array");
        assert_eq!((f.call_count(), f.field("puts")), (0, json!([])), "{counter}");
        let payload = first_payload(&result);
        let index = if counter.contains("message 1") { 1 } else { 0 };
        assert!(
            reason(&payload)
                .starts_with(&format!("invalid-input: countTokens(loaded[{index}].value.content) is {found}")),
            "{counter}: {}",
            reason(&payload)
        );
        assert!(reason(&payload).ends_with("Fix the `countTokens` option"), "{}", reason(&payload));
        assert_eq!(
            payload["scoreEvidence"],
            json!({ "summarizerCalled": false, "invalidIndex": index, "invalidField": "countTokens" })
        );
    }
}

#[wasm_bindgen_test]
async fn a_counter_that_gives_no_count_for_the_summary_discards_it_writes_nothing_and_latches_the_span() {
    // Messages long enough that the label leaves the summary half the span.
    let loaded = conversation(6, 2, 120, "c1");
    let counter = eval("(text) => text.startsWith('[summary of earlier turns') ? NaN : 1");
    let f = Fixture::with_functions(json!({}), json!({ "triggerMinEntries": 4 }), &[("countTokens", counter)]);
    let result = f.fold(&loaded, &js(&json!({ "conversationId": "c1" }))).await;
    assert_eq!(f.call_count(), 1, "the call was made");
    assert_eq!(f.field("puts"), json!([]), "nothing is written");
    assert_eq!(recall_of(&result), id_list(1..=6, 2), "recall is served verbatim");
    let payload = first_payload(&result);
    assert!(
        reason(&payload)
            .starts_with("invalid-input: countTokens returned a number (NaN) for the summary of the span of"),
        "{}",
        reason(&payload)
    );
    assert_eq!(payload["scoreEvidence"], json!({ "summarizerCalled": true, "invalidField": "countTokens" }));
    // Latched: the same span is not paid for again to the same end.
    let again = f.fold(&loaded, &js(&json!({ "conversationId": "c1" }))).await;
    assert_eq!(f.call_count(), 1, "no second call for the span");
    let payload = first_payload(&again);
    assert_eq!(payload["scoreEvidence"]["latched"], true, "{payload}");
}

#[wasm_bindgen_test]
fn token_options_are_checked_at_build() {
    for (config, class, says) in [
        ("({ llm: async () => 's', countTokens: 4 })", "TypeError", "`countTokens` must be a function"),
        (
            "({ llm: async () => 's', triggerMinTokens: -1 })",
            "RangeError",
            "`triggerMinTokens` must be a non-negative integer",
        ),
        (
            "({ llm: async () => 's', preserveRecentTokens: 2.5 })",
            "RangeError",
            "`preserveRecentTokens` must be a non-negative integer",
        ),
        (
            "({ llm: async () => 's', triggerMinTokens: '4000' })",
            "TypeError",
            "`triggerMinTokens` must be a non-negative integer",
        ),
        (
            "({ llm: async () => 's', preserveRecent: 5, preserveRecentTokens: 400 })",
            "Error",
            "`preserveRecentTokens` replaces `preserveRecent`",
        ),
        (
            "({ llm: async () => 's', minFoldTokens: -1 })",
            "RangeError",
            "`minFoldTokens` must be a non-negative integer no larger than 9007199254740991; received a number (-1)",
        ),
        ("({ llm: async () => 's', minFoldTokens: 1.5 })", "RangeError", "received a number (1.5)"),
        (
            "({ llm: async () => 's', minFoldTokens: '300' })",
            "TypeError",
            "`minFoldTokens` must be a non-negative integer; received a string (\"300\")",
        ),
        ("({ llm: async () => 's', minFoldToken: 300 })", "TypeError", "did you mean `minFoldTokens`?"),
    ] {
        assert_refused(config, class, says);
    }
    assert!(api::summarize(eval(
        "({ llm: async () => 's', countTokens: (t) => t.length, triggerMinTokens: 0, preserveRecentTokens: 0, minFoldTokens: 0 })"
    ))
    .is_ok());
}

/// Turns 1..=`turns` of 100-char messages (25 tokens by a quarter of the
/// length), with a stored summary of turns 1–2 loaded after the 4 entries it
/// stands for, as a recency load returns them.
fn behind_a_stored_summary(turns: u32) -> Array {
    let loaded = conversation(turns, 2, 100, "c1");
    let summary = js(&json!({
        "id": "msg-summary-1-2",
        "value": { "role": "system", "content": "Orders #1001 and #1002 were discussed." },
        "metadata": { "summarizes": { "fromTurn": 1, "toTurn": 2, "entryCount": 4, "coveredIds": id_list(1..=2, 2) } },
        "updatedAt": 250,
        "source": { "turn": 2 },
    }));
    loaded.splice(4, 0, &summary);
    loaded
}

#[wasm_bindgen_test]
async fn min_fold_tokens_defaults_to_the_tail_and_waits_only_while_a_summary_stands_for_the_oldest_entries() {
    let identity = js(&json!({ "conversationId": "c1" }));
    // The tail keeps turns 4–10 (350 tokens): the span is turn 3, 50 tokens,
    // under the default floor of 350.
    let f = Fixture::new(json!({}), json!({ "preserveRecentTokens": 350 }));
    let result = f.fold(&behind_a_stored_summary(10), &identity).await;
    assert_eq!(f.call_count(), 0);
    let payload = first_payload(&result);
    assert!(
        reason(&payload).starts_with(
            "not-worth-a-call-yet, no call made: the span of 2 entries (turns 3–3, 200 chars) holds 50 tokens of new \
text, under minFoldTokens (350)"
        ),
        "{}",
        reason(&payload)
    );
    assert_eq!(
        payload["scoreEvidence"],
        json!({ "spanEntries": 2, "spanChars": 200, "summarizerCalled": false, "newTokens": 50, "minFoldTokens": 350 })
    );
    assert_eq!(recall_of(&result)[0], "msg-summary-1-2", "the summary, then the raw recall verbatim");
    assert_eq!(payload["droppedIds"], json!(id_list(1..=2, 2)));

    // The tail keeps turns 9–10: the span is turns 3–8, 300 tokens.
    for (min_fold, calls) in [(301, 0), (300, 1)] {
        let f = Fixture::new(json!({}), json!({ "preserveRecentTokens": 100, "minFoldTokens": min_fold }));
        let result = f.fold(&behind_a_stored_summary(10), &identity).await;
        assert_eq!(f.call_count(), calls, "minFoldTokens {min_fold}: {}", reason(&first_payload(&result)));
    }
    // No summary stands for the oldest loaded entries: the next turn may push
    // them out of a recency window, so the span folds under the floor.
    let f =
        Fixture::new(json!({}), json!({ "triggerMinEntries": 16, "preserveRecentTokens": 100, "minFoldTokens": 301 }));
    let uncovered = conversation(10, 2, 100, "c1").slice(4, 20);
    let result = f.fold(&uncovered, &identity).await;
    assert_eq!(f.call_count(), 1, "{}", reason(&first_payload(&result)));
    assert_eq!(recall_of(&result), ["msg-summary-3-8", "msg-9-0", "msg-9-1", "msg-10-0", "msg-10-1"]);
}
