//! SPEC §8, Background folds (`background: true`): no visit waits for the
//! summarizer; the fold's summary lands in the store for later turns.

use super::*;

fn background_config(extra: Value) -> Value {
    let mut config = json!({ "triggerMinEntries": 10, "preserveRecent": 4, "background": true });
    config.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    config
}

/// `stage.settled()`, awaited.
async fn settled(stage: &JsValue) {
    let settled: Function = get(stage, "settled").dyn_into().expect("stage.settled is a function");
    let promise: Promise = settled.call0(&JsValue::UNDEFINED).unwrap().dyn_into().expect("a Promise");
    assert!(JsFuture::from(promise).await.expect("settled() never rejects").is_undefined());
}

/// The `onEvent` payloads, in order.
fn on_events(f: &Fixture) -> Vec<Value> {
    f.field("onEvents").as_array().unwrap().iter().map(|event| event["payload"].clone()).collect()
}

#[wasm_bindgen_test]
async fn a_visit_returns_without_the_fold_and_its_summary_lands_for_later_turns() {
    let f = Fixture::new(json!({ "reply": { "gate": true, "text": "short summary" } }), background_config(json!({})));
    let loaded = conversation(6, 2, 100, "c1");
    let scope = f.scope(&loaded);
    f.run(&scope).await; // resolves while the call is held
    assert_eq!(f.call_count(), 1, "the call started during the visit");
    assert_eq!(f.field("sets"), json!([]), "recall as loaded: the span stays verbatim");
    let payload = f.only_event();
    assert!(reason(&payload).starts_with("fold-in-background"), "{payload}");
    assert_eq!(payload["scoreEvidence"]["background"], true);
    assert_eq!(payload["scoreEvidence"]["summarizerCalled"], true);
    assert_eq!(f.h.puts().length(), 0);

    f.h.release();
    settled(&f.stage).await;
    assert_eq!(f.h.puts().length(), 1, "written back once the call answered");
    assert_eq!(get(&get(&at(&f.h.puts(), 0), "entry"), "id"), "msg-summary-1-4");
    assert_eq!(f.events().len(), 1, "scope.$emit is not used once the visit has ended");
    let ended = on_events(&f).pop().unwrap();
    assert!(reason(&ended).starts_with("folded 8 entries"), "{ended}");
    assert_eq!(ended["scoreEvidence"]["background"], true);
    assert_eq!(ended["scoreEvidence"]["persisted"], true);

    // A later turn loads the summary, and is served from it without a call.
    let stored = get(&at(&f.h.puts(), 0), "entry");
    let later = Array::of1(&stored);
    for entry in conversation(6, 2, 100, "c1").iter().skip(8) {
        later.push(&entry);
    }
    let result = f.fold(&later, &js(&json!({ "conversationId": "c1" }))).await;
    assert_eq!(ids(&get(&result, "recall")), ids(&later));
    assert_eq!(f.call_count(), 1);
}

#[wasm_bindgen_test]
async fn visits_of_a_conversation_whose_fold_is_in_flight_neither_wait_nor_call() {
    let f = Fixture::new(json!({ "reply": { "gate": true, "text": "short summary" } }), background_config(json!({})));
    let identity = js(&json!({ "conversationId": "c1" }));
    f.fold(&conversation(6, 2, 100, "c1"), &identity).await;
    // A later turn: a longer span of the same conversation.
    let second = f.fold(&conversation(8, 2, 100, "c1"), &identity).await;
    let evidence = first_evidence(&second);
    assert!(reason(&first_payload(&second)).contains("in flight in the background"), "{evidence}");
    assert_eq!(
        evidence,
        json!({ "spanEntries": 12, "spanChars": evidence["spanChars"], "summarizerCalled": false, "coalesced": true, "background": true })
    );
    // Another conversation folds on its own.
    f.fold(&conversation(6, 2, 100, "c2"), &js(&json!({ "conversationId": "c2" }))).await;
    assert_eq!(f.call_count(), 2);
    f.h.release();
    settled(&f.stage).await;
    assert_eq!(f.h.puts().length(), 2);
    // Ended: the conversation's next turn starts its next fold.
    f.fold(&conversation(8, 2, 100, "c1"), &identity).await;
    assert_eq!(f.call_count(), 3);
}

#[wasm_bindgen_test]
async fn each_failure_ends_the_fold_with_its_event_and_never_the_visit() {
    for (reply, store, says) in [
        (json!({ "reject": "rate limited" }), "ok", "Cause: rate limited"),
        (json!({ "throw": "bad key" }), "ok", "Cause: bad key"),
        (json!({ "hang": true }), "ok", "Cause: timed out after 20 ms"),
        (json!({ "text": "short summary" }), "reject", "write-back FAILED (disk full)"),
        (json!({ "text": "short summary" }), "hang", "write-back FAILED (timed out after 20 ms)"),
    ] {
        let f = Fixture::new(json!({ "reply": reply, "store": store }), background_config(json!({ "timeoutMs": 20 })));
        f.h.capture_warnings();
        let result = f.fold(&conversation(6, 2, 100, "c1"), &js(&json!({ "conversationId": "c1" }))).await;
        assert!(reason(&first_payload(&result)).starts_with("fold-in-background"), "{reply}");
        settled(&f.stage).await;
        f.h.restore_warnings();
        let events = on_events(&f);
        assert_eq!(events.len(), 2, "{reply} {store}: the visit's event, then the fold's");
        assert!(reason(&events[1]).contains(says), "{reply} {store}: {}", events[1]);
        assert_eq!(events[1]["scoreEvidence"]["background"], true);
        assert_eq!(f.field("warnings").as_array().unwrap().len(), 1, "{reply} {store}: warned once");
    }
}

#[wasm_bindgen_test]
async fn without_timeout_ms_a_hung_call_leaves_every_visit_fast_until_the_default_deadline() {
    let f = Fixture::new(json!({ "reply": { "hang": true } }), background_config(json!({})));
    let identity = js(&json!({ "conversationId": "c1" }));
    f.fold(&conversation(6, 2, 100, "c1"), &identity).await;
    f.fold(&conversation(8, 2, 100, "c1"), &identity).await;
    let first_of: Function = eval(
        "(stage) => Promise.race([stage.settled().then(() => 'settled'), \
         new Promise((resolve) => setTimeout(() => resolve('still running'), 30))])",
    )
    .unchecked_into();
    let first = JsFuture::from(Promise::from(first_of.call1(&JsValue::UNDEFINED, &f.stage).unwrap())).await.unwrap();
    assert_eq!(first, "still running", "the fold runs until its default deadline");
    assert_eq!(f.call_count(), 1);
}

#[wasm_bindgen_test]
async fn a_newer_summary_loaded_meanwhile_is_never_written_over() {
    let f = Fixture::new(json!({ "reply": { "gate": true, "text": "short summary" } }), background_config(json!({})));
    let identity = js(&json!({ "conversationId": "c1" }));
    // This turn folds turns 1–4. Meanwhile another process wrote a summary
    // of turns 1–9, which the next turn loads.
    f.fold(&conversation(6, 2, 100, "c1"), &identity).await;
    let covered: Array = conversation(9, 2, 100, "c1").iter().map(|entry| get(&entry, "id")).collect();
    let next = Array::of1(&summary_of("msg-summary-1-9", &covered, 9.0));
    for entry in conversation(16, 2, 100, "c1").iter().skip(18) {
        next.push(&entry);
    }
    f.fold(&next, &identity).await;
    f.h.release();
    settled(&f.stage).await;
    assert_eq!(f.h.puts().length(), 0, "the older base is not written over the newer summary");
    let ended = on_events(&f).pop().unwrap();
    assert!(reason(&ended).contains("not written back: a newer summary"), "{ended}");
    assert_eq!(ended["scoreEvidence"]["persisted"], false);
}

#[wasm_bindgen_test]
async fn wait_until_gets_one_promise_per_background_call() {
    let handed = Array::new();
    let wait_until = Closure::<dyn Fn(JsValue)>::new({
        let handed = handed.clone();
        move |promise: JsValue| {
            handed.push(&promise);
        }
    })
    .into_js_value();
    let f = Fixture::with_functions(
        json!({ "reply": { "gate": true, "text": "short summary" } }),
        background_config(json!({})),
        &[("waitUntil", wait_until)],
    );
    let identity = js(&json!({ "conversationId": "c1" }));
    f.fold(&conversation(6, 2, 100, "c1"), &identity).await;
    f.fold(&conversation(8, 2, 100, "c1"), &identity).await; // in flight: no call, nothing handed
    assert_eq!(handed.length(), 1);
    f.h.release();
    let ended = JsFuture::from(Promise::from(at(&handed, 0))).await.expect("it never rejects");
    assert!(ended.is_undefined());
    assert_eq!(f.h.puts().length(), 1, "it settles once the fold has ended");
}

#[wasm_bindgen_test]
async fn a_wait_until_that_throws_warns_once_and_the_fold_goes_on() {
    let throws = eval("() => { throw new TypeError('Illegal invocation') }");
    let f = Fixture::with_functions(json!({}), background_config(json!({})), &[("waitUntil", throws)]);
    f.h.capture_warnings();
    for conversation_id in ["c1", "c2"] {
        f.fold(&conversation(6, 2, 100, conversation_id), &js(&json!({ "conversationId": conversation_id }))).await;
    }
    settled(&f.stage).await;
    f.h.restore_warnings();
    let warnings = f.field("warnings");
    assert_eq!(warnings.as_array().unwrap().len(), 1, "{warnings}");
    assert!(warnings[0].as_str().unwrap().contains("waitUntil threw"), "{warnings}");
    assert_eq!(f.h.puts().length(), 2, "both folds ended and were written");
}

#[wasm_bindgen_test]
fn background_is_refused_without_a_store_or_as_anything_but_a_boolean_and_wait_until_without_it() {
    assert_refused(
        "({ llm: async () => 's', background: true })",
        "TypeError",
        "`store` must be an object with a `put(identity, entry)` method when `background` is true",
    );
    assert_refused(
        "({ llm: async () => 's', store: { put: async () => {} }, background: 'yes' })",
        "TypeError",
        "`background` must be a boolean",
    );
    assert_refused(
        "({ llm: async () => 's', store: { put: async () => {} }, waitUntil: () => {} })",
        "Error",
        "`waitUntil` was given (a function) but `background` is not true",
    );
    assert_refused(
        "({ llm: async () => 's', store: { put: async () => {} }, background: true, waitUntil: 1 })",
        "TypeError",
        "`waitUntil` must be a function",
    );
}

#[wasm_bindgen_test]
async fn with_claims_the_call_after_the_visit_gets_the_span_and_the_end_names_every_dropped_entry() {
    // The summarizer is called after the claim, once the visit has returned:
    // what the fold kept of recall must still give the span's own values,
    // every dropped entry's id (a claim left out, as well as the span) and
    // the span's ids for the summary's coverage.
    let config = background_config(json!({ "claims": true, "claimLeaseMs": 30000, "timeoutMs": 1000 }));
    let f = Fixture::with_functions(json!({ "claims": "ok" }), config, &[("now", eval("() => 5000"))]);
    let other_claim = eval(
        "({ id: 'msg-summary-claim-90-91', value: { role: 'system', content: '' }, metadata: { summaryClaim: \
         { fromTurn: 90, toTurn: 91, entryCount: 2, claimedAtMs: 1, leaseMs: 60000 } }, version: 1, createdAt: 99, \
         updatedAt: 99, lastAccessedAt: 1, accessCount: 0, ttl: 60001 })",
    );
    let messages = conversation(6, 2, 100, "c1");
    let loaded = Array::of1(&other_claim);
    for entry in messages.iter() {
        loaded.push(&entry);
    }
    f.run(&f.scope(&loaded)).await;
    assert_eq!(f.call_count(), 0, "the claim is awaited first, after the visit");
    settled(&f.stage).await;

    assert_eq!(f.call_count(), 1);
    let sent = at(&f.h.calls(), 0).dyn_into::<Array>().unwrap();
    assert_eq!(sent.length(), 9, "the instruction, then the span's 8 values");
    for k in 0..8 {
        assert!(same(&sent.get(k + 1), &get(&messages.get(k), "value")), "the span's own value objects");
    }
    let ended = on_events(&f).pop().unwrap();
    assert!(reason(&ended).starts_with("folded 8 entries"), "{ended}");
    assert_eq!(ended["scoreEvidence"]["background"], true);
    let mut dropped = vec!["msg-summary-claim-90-91".to_owned()];
    dropped.extend(id_list(1..=4, 2));
    assert_eq!(ended["droppedIds"], json!(dropped), "the claim left out, then the span");
    let summary = &f.field("puts")[0]["entry"];
    let mut covered = id_list(1..=4, 2);
    covered.push("msg-summary-claim-1-4".into());
    assert_eq!(summary["metadata"]["summarizes"]["coveredIds"], json!(covered));
}

#[wasm_bindgen_test]
async fn with_claims_a_provider_called_after_the_visit_gets_the_whole_span_in_its_transcript() {
    // The provider's transcript is written after the claim, from the span's
    // contents as the fold kept them once the visit had returned.
    let config = background_config(json!({ "claims": true, "claimLeaseMs": 30000, "timeoutMs": 1000 }));
    let f =
        Fixture::with_functions(json!({ "shape": "provider", "claims": "ok" }), config, &[("now", eval("() => 5000"))]);
    let messages = conversation(6, 2, 100, "c1");
    f.run(&f.scope(&messages)).await;
    assert_eq!(f.call_count(), 0, "the claim is awaited first, after the visit");
    settled(&f.stage).await;
    assert_eq!(f.call_count(), 1);
    let transcript = f.field("calls")[0]["messages"][0]["content"].as_str().unwrap().to_owned();
    for k in 0..8 {
        let content = get(&get(&messages.get(k), "value"), "content").as_string().unwrap();
        assert!(transcript.contains(&content), "span entry {k}'s content is in the transcript");
    }
    let tail = get(&get(&messages.get(8), "value"), "content").as_string().unwrap();
    assert!(!transcript.contains(&tail), "the tail is not");
    assert!(reason(&on_events(&f).pop().unwrap()).starts_with("folded 8 entries"));
}
