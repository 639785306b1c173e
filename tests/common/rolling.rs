//! Long conversations: `maxSummaries` (rolling summaries) and `triggerMinChars`.

use super::*;

// ---------------------------------------------------------------- long conversations: maxSummaries, triggerMinChars

#[wasm_bindgen_test]
async fn max_summaries_one_rolls_the_old_summary_into_the_new_one_in_one_call() {
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 10, "preserveRecent": 4, "maxSummaries": 1 }));
    let identity = js(&json!({ "conversationId": "c1" }));
    // Turn 6: turns 1–4 fold into the first summary.
    let first = f.fold(&array_of(&turns(1, 6)), &identity).await;
    let s1 = at(&get(&first, "recall"), 0);
    assert_eq!(get(&s1, "id"), "msg-summary-1-4");
    // Turn 10: loadRecent brings the stored summary and the newer turns; the
    // summary would be a second one, so it folds in with turns 5–8.
    let mut loaded = vec![s1.clone()];
    loaded.extend(turns(5, 10));
    let second = f.fold(&array_of(&loaded), &identity).await;
    assert_eq!(f.call_count(), 2, "one call per fold");
    let messages = at(&f.h.calls(), 1);
    assert!(same(&at(&messages, 1), &get(&s1, "value")), "the rolled summary comes first, as the caller's own value");
    let instruction = get(&at(&messages, 0), "content").as_string().unwrap();
    assert!(instruction.contains("carry every fact"), "{instruction}");
    let recall = get(&second, "recall");
    let s2 = at(&recall, 0);
    assert_eq!(get(&s2, "id"), "msg-summary-1-8", "fromTurn is the rolled summary's");
    assert_eq!(parse(&ids(&recall)), json!(["msg-summary-1-8", "msg-9-0", "msg-9-1", "msg-10-0", "msg-10-1"]));
    let coverage = parse(&to_json(&get(&get(&s2, "metadata"), "summarizes")));
    assert_eq!(coverage["fromTurn"], 1);
    assert_eq!(coverage["toTurn"], 8);
    assert_eq!(coverage["entryCount"], 9, "what it names directly: the old summary and 8 entries");
    let mut expected = vec!["msg-summary-1-4".to_owned()];
    expected.extend(id_list(5..=8, 2));
    assert_eq!(coverage["coveredIds"], json!(expected));
    let payload = first_payload(&second);
    assert!(
        reason(&payload)
            .starts_with("folded 9 entries (turns 1\u{2013}8), 1 of them an earlier summary, into msg-summary-1-8"),
        "{payload}"
    );
    assert_eq!(payload["scoreEvidence"]["rolledSummaries"], 1);
    assert_eq!(payload["droppedIds"], json!(expected));
    let label = get(&get(&s2, "value"), "content").as_string().unwrap();
    assert!(label.starts_with(&label_text("a model").render(&[1.0, 8.0, 9.0])), "{label}");
    assert_eq!(f.h.puts().length(), 2, "written back; the old summary stays in the store untouched");
}

#[wasm_bindgen_test]
async fn a_summary_another_summary_names_is_left_out_under_every_config() {
    // A store written by a rolling stage, read by a stage without maxSummaries.
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 100 }));
    let old = summary_of("msg-summary-1-4", &js(&json!(id_list(1..=4, 2))), 4.0);
    let mut newer_ids = vec!["msg-summary-1-4".to_owned()];
    newer_ids.extend(id_list(5..=8, 2));
    let newer = summary_of("msg-summary-1-8", &js(&json!(newer_ids)), 8.0);
    let mut loaded = vec![old, newer.clone()];
    loaded.extend(turns(3, 10));
    let result = f.fold(&array_of(&loaded), &js(&json!({ "conversationId": "c1" }))).await;
    let recall = parse(&ids(&get(&result, "recall")));
    assert_eq!(recall, json!(["msg-summary-1-8", "msg-9-0", "msg-9-1", "msg-10-0", "msg-10-1"]));
    let payload = first_payload(&result);
    let dropped = payload["droppedIds"].as_array().unwrap();
    assert_eq!(dropped[0], "msg-summary-1-4", "the named summary is dropped, in load order: {payload}");
    assert!(dropped.contains(&json!("msg-3-0")), "its own coverage still excludes what it names: {payload}");
    assert_eq!(f.call_count(), 0);
}

#[wasm_bindgen_test]
async fn trigger_min_chars_considers_a_fold_whatever_the_entry_count() {
    // 6 entries, far below triggerMinEntries, but 6 × 2,000 chars of pasted text.
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 50, "preserveRecent": 2, "triggerMinChars": 10_000 }));
    let big = conversation(3, 2, 2000, "c1");
    f.run(&f.scope(&big)).await;
    assert_eq!(f.call_count(), 1);
    assert_eq!(f.recall_ids()[0], "msg-summary-1-2");
    let g = Fixture::new(json!({}), json!({ "triggerMinEntries": 50, "preserveRecent": 2, "triggerMinChars": 20_000 }));
    g.run(&g.scope(&big)).await;
    assert_eq!(g.call_count(), 0, "below both triggers nothing is asked");
}

#[wasm_bindgen_test]
fn unknown_config_keys_are_refused_naming_the_nearest_known_one() {
    let (class, message) = refusal("({ llm: async () => '', preserveRecnet: 4 })");
    assert_eq!(class, "TypeError");
    assert!(message.contains("`preserveRecnet` is not an option (received a number (4))"), "{message}");
    assert!(message.ends_with("did you mean `preserveRecent`?"), "{message}");
    // The same when the typo comes before `llm`: every known key after it is still seen.
    let (class, message) = refusal("({ preserveRecnet: 4, llm: { complete: async () => ({}) }, model: 'm' })");
    assert_eq!(class, "TypeError");
    assert!(message.contains("`preserveRecnet` is not an option"), "{message}");
    // The value is quoted from the key itself, even one whose text Rust cannot hold.
    let (_, message) = refusal("({ llm: async () => '', 'k\\ud800': 4, 'k\\ufffd': 5 })");
    assert!(message.contains("is not an option (received a number (4))"), "{message}");
    let (class, message) = refusal("({ llm: async () => '', maxSummaries: 0 })");
    assert_eq!(class, "RangeError");
    assert!(message.contains("`maxSummaries` must be a positive integer"), "{message}");
    // Text with a lone surrogate would be sent or emitted changed (U+FFFD).
    for key in ["strategyId", "systemPrompt"] {
        assert_refused(
            &format!("({{ llm: async () => '', {key}: 'sid\\ud800' }})"),
            "TypeError",
            &format!(
                "`{key}` must be well-formed text; received a string (\"sid\\ud800\"), which holds a lone surrogate"
            ),
        );
    }
    assert_refused(
        "({ llm: { complete: async () => ({ content: '' }) }, model: 'mini\\udfff' })",
        "TypeError",
        "`model` must be well-formed text",
    );
    // Each refusal names what the key takes, not what other counts take.
    assert_refused(
        "({ llm: async () => '', maxSummaries: '2' })",
        "TypeError",
        "`maxSummaries` must be a positive integer; received a string (\"2\")",
    );
    assert_refused(
        "({ llm: async () => '', maxSummaries: 1.5 })",
        "RangeError",
        "received a number (1.5). Fix: pass a whole number >= 1, or omit it for no bound.",
    );
    assert_refused(
        "({ llm: async () => '', store: { put() {}, putIfVersion() {} }, claims: true, claimLeaseMs: 2 ** 53 })",
        "RangeError",
        "Fix: pass a whole number of ms from 1 to 9007199254740991, or omit it for the default.",
    );
}

#[wasm_bindgen_test]
async fn under_max_summaries_a_small_fold_waits_only_while_covered_entries_leave_the_window_first() {
    // Turn 1 is covered by a stored summary and still loaded in front of it;
    // the span (turns 2–5) holds 8 × 100 = 800 chars of new text, under three
    // ~300-char labels.
    let all: Vec<JsValue> = conversation(7, 2, 100, "c1").iter().collect();
    let stored = summary_of("msg-summary-1-1", &js(&json!(id_list(1..=1, 2))), 1.0);
    let mut with_slack = all[..2].to_vec();
    with_slack.push(stored.clone());
    with_slack.extend_from_slice(&all[2..]);
    let config = json!({ "triggerMinEntries": 10, "preserveRecent": 4, "maxSummaries": 1 });
    let identity = js(&json!({ "conversationId": "c1" }));
    let rolling = Fixture::new(json!({}), config.clone());
    let waited = rolling.fold(&array_of(&with_slack), &identity).await;
    assert_eq!(rolling.call_count(), 0, "no paid call for a fold that would not pay for itself yet");
    let payload = first_payload(&waited);
    assert!(reason(&payload).starts_with("not-worth-a-call-yet, no call made: the span of 9 entries"), "{payload}");
    let evidence = &payload["scoreEvidence"];
    assert_eq!(evidence["deferred"], true);
    assert_eq!(evidence["summarizerCalled"], false);
    assert_eq!(evidence["newChars"], 800);
    // With fewer covered entries in front of it than the newest turn holds
    // (two), the next turn's load may drop the summary: no waiting.
    let mut one_covered = all[1..2].to_vec();
    one_covered.push(stored.clone());
    one_covered.extend_from_slice(&all[2..]);
    let short_slack = Fixture::new(json!({}), config.clone());
    short_slack.fold(&array_of(&one_covered), &identity).await;
    assert_eq!(short_slack.call_count(), 1, "one covered entry is not room for a turn of two");
    // A fleet claim, dated before the oldest entry, is loaded first and left
    // out of recall like a covered entry: with it, there is room again.
    let claim = eval(
        "({ id: 'msg-summary-claim-1-1', value: { role: 'system', content: '' }, metadata: { summaryClaim: \
{ fromTurn: 1, toTurn: 1, entryCount: 2, claimedAtMs: 5000, leaseMs: 30000 } } })",
    );
    let mut claim_first = vec![claim];
    claim_first.extend_from_slice(&one_covered);
    let claim_slack = Fixture::new(json!({}), config.clone());
    let waited = claim_slack.fold(&array_of(&claim_first), &identity).await;
    assert_eq!(claim_slack.call_count(), 0, "a claim and a covered entry are room for a turn of two");
    assert_eq!(first_payload(&waited)["scoreEvidence"]["deferred"], true);
    // Once the summary is the oldest entry loaded, the next load may drop
    // it: the fold is made now, rolling it in.
    let mut without_slack = vec![stored];
    without_slack.extend_from_slice(&all[2..]);
    let folded = rolling.fold(&array_of(&without_slack), &identity).await;
    assert_eq!(rolling.call_count(), 1);
    // fromTurn is the rolled summary's (`summaryOf` writes 0).
    assert_eq!(get(&at(&get(&folded, "recall"), 0), "id"), "msg-summary-0-5");
    // Without maxSummaries the rule is off: the original would fold this span.
    let plain = Fixture::new(json!({}), json!({ "triggerMinEntries": 10, "preserveRecent": 4 }));
    plain.fold(&array_of(&with_slack), &identity).await;
    assert_eq!(plain.call_count(), 1);
}

#[wasm_bindgen_test]
async fn a_read_reentered_from_an_entry_getter_gets_its_own_facts_buffer() {
    // A first, larger recall sizes the shared buffer; then an entry's `value`
    // getter (read while the outer facts are being filled) folds a tiny recall.
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 4, "preserveRecent": 1 }));
    f.fold(&conversation(10, 2, 50, "warm"), &js(&json!({ "conversationId": "warm" }))).await;
    let make = eval(
        "(stage) => Array.from({ length: 6 }, (_, i) => i === 3
            ? { id: 'm3', get value() { stage.fold(Array.from({ length: 4 }, (_, k) => ({ id: 'inner' + k, value: { content: 'y' } })), {}); return { role: 'user', content: 'x'.repeat(400) }; }, source: { turn: 3 } }
            : { id: 'm' + i, value: { role: 'user', content: 'x'.repeat(400) }, source: { turn: i } })",
    );
    let loaded = make.unchecked_ref::<Function>().call1(&JsValue::UNDEFINED, &f.stage).unwrap();
    let result = f.fold(&loaded, &js(&json!({ "conversationId": "outer" }))).await;
    let payload = first_payload(&result);
    assert!(reason(&payload).starts_with("folded 5 entries (turns 0\u{2013}4)"), "{payload}");
    assert_eq!(payload["scoreEvidence"]["spanChars"], 2000);
}

#[wasm_bindgen_test]
async fn a_summarizer_answering_with_a_proxy_of_a_promise_is_awaited_as_await_would() {
    let f = Fixture::new(json!({}), small_config());
    let config = f.h.config(js(&json!({})));
    let llm = eval("() => new Proxy(Promise.resolve('short summary'), {})");
    Reflect::set(&config, &"llm".into(), &llm).unwrap();
    Reflect::set(&config, &"triggerMinEntries".into(), &10.into()).unwrap();
    Reflect::set(&config, &"preserveRecent".into(), &4.into()).unwrap();
    let stage = api::summarize(config).unwrap();
    let fold: Function = get(&stage, "fold").unchecked_into();
    let loaded = conversation(6, 2, 100, "c1");
    for _ in 0..2 {
        let promise: Promise = fold.call2(&JsValue::UNDEFINED, &loaded, &js(&json!({}))).unwrap().unchecked_into();
        let result = JsFuture::from(promise).await.expect("the visit settles");
        let payload = first_payload(&result);
        // `await` of a Proxy of a promise rejects (the promise `then` it reaches
        // needs a real promise): the call counts as failed, and the next visit
        // runs instead of waiting on a flight that never ends.
        assert!(reason(&payload).contains("summarizer-failed"), "{payload}");
    }
}

#[wasm_bindgen_test]
async fn a_revoked_proxy_as_recall_is_invalid_input_and_the_stage_goes_on() {
    let f = Fixture::new(json!({}), small_config());
    f.h.capture_warnings();
    let revoked = eval("(() => { const { proxy, revoke } = Proxy.revocable([], {}); revoke(); return proxy; })()");
    let result = f.fold(&revoked, &js(&json!({}))).await;
    f.h.restore_warnings();
    let payload = first_payload(&result);
    assert!(reason(&payload).starts_with("invalid-input: loaded is unreadable"), "{payload}");
    let later = f.fold(&conversation(6, 2, 100, "c1"), &js(&json!({ "conversationId": "c1" }))).await;
    assert_eq!(parse(&ids(&get(&later, "recall")))[0], "msg-summary-1-4", "the module still works");
    assert!(
        api::summary_entry_id_js(eval("Object.create(null)"), 1.into()).is_err(),
        "an id of a value with no string form is an error, not a trap"
    );
}

#[wasm_bindgen_test]
async fn a_rolled_fold_is_named_by_the_newest_turn_it_holds() {
    // The stored summary of turns 1–8 is loaded with raw turns 1–4 it covers
    // through an expired one, and turns 9–10: its own toTurn (8) is later
    // than the raw span's, so the new summary is 1–8 or later, never 1–4.
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 6, "preserveRecent": 4, "maxSummaries": 1 }));
    let mut names = vec!["msg-summary-1-4".to_owned()];
    names.extend(id_list(5..=8, 2));
    let s18 = summary_of("msg-summary-1-8", &js(&json!(names)), 8.0);
    let mut loaded = vec![s18];
    loaded.extend(turns(1, 4));
    loaded.extend(turns(9, 10));
    let result = f.fold(&array_of(&loaded), &js(&json!({ "conversationId": "c1" }))).await;
    let new_id = get(&at(&get(&result, "recall"), 0), "id").as_string().unwrap();
    assert_eq!(new_id, "msg-summary-0-8", "from the rolled summary's fromTurn (0) to its toTurn (8)");
}

#[wasm_bindgen_test]
async fn a_rolled_fold_keeps_single_flight_the_latch_and_ttl_anchoring() {
    // Recall as in the rolling test: the stored summary of turns 1–4, then turns 5–10.
    let s1 = summary_of("msg-summary-1-4", &js(&json!(id_list(1..=4, 2))), 4.0);
    let mut loaded = vec![s1];
    loaded.extend(turns(5, 10));
    let loaded = array_of(&loaded);
    let identity = js(&json!({ "conversationId": "c1" }));
    let config = json!({ "triggerMinEntries": 10, "preserveRecent": 4, "maxSummaries": 1, "ttlMs": 1000 });

    // Single flight: two concurrent runs over the rolled span make one call.
    let f = Fixture::new(json!({ "reply": { "gate": true, "text": "short" } }), config.clone());
    let (a, b) = (f.start_fold(&loaded, &identity), f.start_fold(&loaded, &identity));
    JsFuture::from(sleep(5)).await.unwrap();
    assert_eq!(f.call_count(), 1, "one call for the rolled span");
    f.h.release();
    let (a, b) = (JsFuture::from(a).await.unwrap(), JsFuture::from(b).await.unwrap());
    for result in [&a, &b] {
        assert_eq!(get(&at(&get(result, "recall"), 0), "id"), "msg-summary-0-8");
    }
    // TTL from the newest folded clock: turn 8's second entry (updatedAt 801), plus one.
    let entry = &f.field("puts")[0]["entry"];
    assert_eq!(entry["createdAt"], 802);
    assert_eq!(entry["ttl"], 1802);

    // The latch: a rolled span refused as not smaller is not asked again.
    let g = Fixture::new(json!({ "reply": { "text": "y".repeat(5000) } }), config);
    g.fold(&loaded, &identity).await;
    let second = g.fold(&loaded, &identity).await;
    assert_eq!(g.call_count(), 1);
    let payload = first_payload(&second);
    assert!(reason(&payload).contains("not re-asked"), "{payload}");
}
