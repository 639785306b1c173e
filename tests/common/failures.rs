//! Hostile data and failing callers: throwing getters, non-Error rejections, stores that never answer or answer late.

use super::*;

// ---------------------------------------------------------------- hostile data (review findings)

#[wasm_bindgen_test]
async fn entries_that_throw_never_escape_and_never_block_a_span() {
    // A role with no prototype cannot be turned into a string.
    let f = Fixture::new(json!({ "shape": "provider" }), json!({ "triggerMinEntries": 4, "preserveRecent": 1 }));
    f.h.capture_warnings();
    let loaded = eval(
        "Array.from({ length: 6 }, (_, i) => ({ id: 'm' + i, value: { role: i === 0 ? Object.create(null) : 'user', content: 'x'.repeat(400) }, source: { turn: i } }))",
    );
    let identity = js(&json!({ "conversationId": "c1" }));
    let first = f.fold(&loaded, &identity).await;
    let second = f.fold(&loaded, &identity).await;
    f.h.restore_warnings();
    assert_eq!(f.call_count(), 0, "no paid call with a transcript that could not be written");
    for result in [&first, &second] {
        let payload = first_payload(&result);
        // No call was made, so the event must not say one was.
        assert!(reason(&payload).starts_with("invalid-input: the span of 5 entries"), "{payload}");
        assert!(reason(&payload).contains("could not be read again to write the transcript"), "{payload}");
        assert_eq!(payload["scoreEvidence"]["summarizerCalled"], false, "{payload}");
        assert!(payload["scoreEvidence"].get("failed").is_none(), "{payload}");
    }
    let warnings = f.field("warnings");
    assert!(!warnings[0].as_str().unwrap().contains("summarizer"), "the warning blames the entries: {warnings}");
    assert_eq!(ids(&get(&second, "recall")), ids(&loaded), "verbatim, and the second run was not left waiting");

    // A getter that throws while recall is read: the stage still returns a Promise.
    let g = Fixture::new(json!({}), json!({ "triggerMinEntries": 0 }));
    g.h.capture_warnings();
    let scope = g.scope(&eval(
        "[{ id: 'a', value: { content: 'x' } }, { get id() { throw new Error('id getter down') }, value: {} }]",
    ));
    g.run(&scope).await;
    g.h.restore_warnings();
    let payload = g.only_event();
    assert!(
        reason(&payload).starts_with("invalid-input: loaded[1] is unreadable (reading it threw: id getter down)"),
        "{payload}"
    );
    assert_eq!(g.field("sets"), json!([]));
}

#[wasm_bindgen_test]
async fn the_summary_is_stamped_when_the_fold_happens_after_the_call() {
    let now = eval("(() => { let reads = 0; return () => (reads++ === 0 ? 1000 : 9000); })()");
    let f = Fixture::with_functions(json!({}), small_config(), &[("now", now)]);
    f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
    let entry = &f.field("puts")[0]["entry"];
    assert_eq!(entry["metadata"]["summarizes"]["summarizedAtMs"], 9000);
    assert_eq!(entry["lastAccessedAt"], 9000);
    assert_eq!(entry["createdAt"], 402, "the anchor still comes from the span's clocks");
}

#[wasm_bindgen_test]
async fn only_the_leading_run_reports_token_usage() {
    let f = Fixture::new(json!({ "shape": "provider", "reply": { "gate": true, "text": "shared" } }), small_config());
    let runs =
        run_concurrently(&f.stage, &f.h, &conversation(6, 2, 100, "c1"), &js(&json!({ "conversationId": "c1" })), 3);
    JsFuture::from(sleep(5)).await.unwrap();
    f.h.release();
    JsFuture::from(Promise::from(get(&runs, "done"))).await.unwrap();
    let evidence: Vec<Value> = f.events().iter().map(|e| e["payload"]["scoreEvidence"].clone()).collect();
    assert_eq!(evidence.iter().filter(|e| e.get("usage").is_some()).count(), 1, "{evidence:#?}");
    assert!(evidence.iter().all(|e| (e["summarizerCalled"] == true) == e.get("usage").is_some()));
}

#[wasm_bindgen_test]
async fn an_identity_getter_that_reenters_the_stage_does_not_disturb_the_outer_read() {
    // The outer recall folds (6 × 400 chars); the inner one is tiny but
    // reaches the trigger, so its facts are read too. If the inner read
    // overwrote the shared facts buffer, the outer span would be measured as
    // the inner one and declined.
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 4, "preserveRecent": 1 }));
    let stage = f.stage.clone();
    let scope = eval(
        "(stage) => ({
            loaded: Array.from({ length: 6 }, (_, i) => ({ id: 'm' + i, value: { role: 'user', content: 'x'.repeat(400) }, source: { turn: i } })),
            get identity() {
                stage.fold(Array.from({ length: 4 }, (_, i) => ({ id: 'inner' + i, value: { content: 'y' } })), {});
                return { conversationId: 'outer' };
            },
            $emit(type, payload) { this.events = [...(this.events ?? []), payload] },
        })",
    );
    let scope = scope.unchecked_ref::<Function>().call1(&JsValue::UNDEFINED, &stage).unwrap();
    f.run(&scope).await;
    let events = parse(&to_json(&get(&scope, "events")));
    assert!(reason(&events[0]).starts_with("folded 5 entries (turns 0\u{2013}4)"), "{events}");
    assert_eq!(events[0]["scoreEvidence"]["spanChars"], 2000);
}

// ---------------------------------------------------------------- parity with String(cause), and the write's own risks

#[wasm_bindgen_test]
async fn a_non_error_rejection_is_named_as_string_names_it() {
    let f = Fixture::new(json!({ "reply": { "rejectValue": 404 } }), small_config());
    f.h.capture_warnings();
    f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
    f.h.restore_warnings();
    assert!(reason(&f.only_event()).ends_with("Cause: 404"), "{}", f.only_event());
    let warning = f.field("warnings")[0].as_str().unwrap().to_owned();
    assert!(warning.contains("the summarizer threw") && warning.contains("404"), "{warning}");
    assert!(warning.contains("memory-summarize"), "{warning}");

    let g = Fixture::new(json!({ "store": "reject404" }), small_config());
    g.h.capture_warnings();
    g.run(&g.scope(&conversation(6, 2, 100, "c1"))).await;
    g.h.restore_warnings();
    assert!(reason(&g.only_event()).contains("write-back FAILED (404)"), "{}", g.only_event());
    let warning = g.field("warnings")[0].as_str().unwrap().to_owned();
    assert!(warning.contains("the store refused it") && warning.contains("404"), "{warning}");
}

/// An SDK's error may carry a number or an object where a message's text
/// belongs. It is that visit's failure, named as `String` names it, and
/// another conversation's visit in flight meanwhile folds as it would alone.
#[wasm_bindgen_test]
async fn an_error_whose_message_or_name_is_not_a_string_is_one_visits_failure() {
    for (error, cause) in [
        (json!({ "message": 429 }), "Cause: 429"),
        (json!({ "message": "", "name": 500 }), "Cause: 500"),
        (json!({ "message": { "code": "rate_limited" } }), "Cause: [object Object]"),
    ] {
        let failing = Fixture::new(json!({ "reply": { "rejectError": error } }), small_config());
        let other = Fixture::new(json!({ "reply": { "gate": true, "text": "other summary" } }), small_config());
        let in_flight = other.start_fold(&conversation(6, 2, 100, "A"), &js(&json!({ "conversationId": "A" })));
        failing.h.capture_warnings();
        let failed = failing.fold(&conversation(6, 2, 100, "B"), &js(&json!({ "conversationId": "B" }))).await;
        failing.h.restore_warnings();
        let payload = first_payload(&failed);
        assert!(reason(&payload).starts_with("summarizer-failed"), "{payload}");
        assert!(reason(&payload).ends_with(cause), "{payload}");
        other.h.release();
        let folded = JsFuture::from(in_flight).await.expect("the other conversation's visit resolves");
        assert_eq!(parse(&ids(&get(&folded, "recall")))[0], "msg-summary-1-4");
    }
    let g = Fixture::new(json!({ "store": "rejectStatusError" }), small_config());
    g.h.capture_warnings();
    g.run(&g.scope(&conversation(6, 2, 100, "c1"))).await;
    g.h.restore_warnings();
    assert!(reason(&g.only_event()).contains("write-back FAILED (503)"), "{}", g.only_event());
}

/// Two stored summaries that name each other would each hide the other, and
/// the turns they hold would leave recall with them. No fold writes that,
/// so it is a store's corruption: explained, and recall served as loaded.
#[wasm_bindgen_test]
async fn summaries_that_cover_one_another_leave_recall_untouched_and_say_so() {
    let f = Fixture::new(json!({}), small_config());
    f.h.capture_warnings();
    let all: Vec<JsValue> = conversation(7, 2, 100, "c1").iter().collect();
    let mut loaded = vec![
        summary_of("msg-summary-1-1", &js(&json!(["msg-summary-2-2", "msg-1-0", "msg-1-1"])), 1.0),
        summary_of("msg-summary-2-2", &js(&json!(["msg-summary-1-1", "msg-2-0", "msg-2-1"])), 2.0),
    ];
    loaded.extend_from_slice(&all);
    let loaded = array_of(&loaded);
    let result = f.fold(&loaded, &js(&json!({ "conversationId": "c1" }))).await;
    f.h.restore_warnings();
    let payload = first_payload(&result);
    assert_eq!(
        reason(&payload),
        "invalid-input: loaded[0] is covered only by summaries that cover one another (msg-summary-1-1, \
msg-summary-2-2), so it and they would leave recall (expected an entry that a summary left in recall stands for, \
directly or through the summaries it took in); recall is left untouched, with no summarizer call and no write this \
turn. Fix whatever writes these entries to the store"
    );
    assert_eq!(
        payload["scoreEvidence"],
        json!({ "summarizerCalled": false, "invalidIndex": 0, "invalidField": "entry" })
    );
    assert!(same(&get(&result, "recall"), &loaded), "recall as loaded, the caller's own array");
    assert_eq!(f.call_count(), 0);
}

/// The ids a visit copies are bounded for the whole recall, not per
/// summary: a store whose summaries each name many (or long) ids, or one
/// whose `coveredIds` iterator never ends, cannot exhaust the instance's
/// memory, and with it every other conversation's visit.
#[wasm_bindgen_test]
async fn the_ids_a_recall_names_are_bounded_in_all() {
    let f = Fixture::new(json!({}), small_config());
    f.h.capture_warnings();
    let mut loaded: Vec<JsValue> = conversation(6, 2, 100, "c1").iter().collect();
    let ids = eval("Object.assign(['msg-1-0'], { *[Symbol.iterator]() { for (let n = 0; ; n++) yield `id-${n}`; } })");
    loaded.insert(0, summary_of("msg-summary-1-1", &ids, 1.0));
    let result = f.fold(&array_of(&loaded), &JsValue::UNDEFINED).await;
    let payload = first_payload(&result);
    assert!(
        reason(&payload).starts_with(
            "invalid-input: loaded[0].metadata.summarizes.coveredIds is an array that brings the ids the recall's \
summaries name past 100000 (expected at most 100000 ids named by the recall's summaries together)"
        ),
        "{payload}"
    );
    let many = eval("Array.from({ length: 60000 }, (_, n) => `id-${n}`)");
    let mut loaded: Vec<JsValue> = conversation(6, 2, 100, "c1").iter().collect();
    loaded.insert(0, summary_of("msg-summary-0-1", &many, 1.0));
    loaded.insert(1, summary_of("msg-summary-0-2", &many, 2.0));
    let result = f.fold(&array_of(&loaded), &JsValue::UNDEFINED).await;
    let payload = first_payload(&result);
    assert!(
        reason(&payload).starts_with("invalid-input: loaded[1].metadata.summarizes.coveredIds is an array that brings"),
        "{payload}"
    );
    let long = eval("Array.from({ length: 20 }, (_, n) => `${n}-` + 'x'.repeat(1024 * 1024))");
    let mut loaded: Vec<JsValue> = conversation(6, 2, 100, "c1").iter().collect();
    loaded.insert(0, summary_of("msg-summary-0-1", &long, 1.0));
    let loaded = array_of(&loaded);
    let result = f.fold(&loaded, &JsValue::UNDEFINED).await;
    f.h.restore_warnings();
    let payload = first_payload(&result);
    assert!(
        reason(&payload).starts_with(
            "invalid-input: loaded is entries whose ids and covered ids hold more than 16777216 chars (expected at \
most 16777216 chars of ids"
        ),
        "{payload}"
    );
    assert!(same(&get(&result, "recall"), &loaded), "recall as loaded");
    assert_eq!(f.call_count(), 0);
}

/// A scope that refuses the new recall (frozen, or a setter that throws)
/// keeps its own, and the event says so instead of reporting a smaller
/// recall that never was; the one warning says so too.
#[wasm_bindgen_test]
async fn a_scope_that_refuses_the_new_recall_keeps_its_own_and_the_event_says_so() {
    let f = Fixture::new(json!({ "reply": { "text": "short summary" } }), small_config());
    f.h.capture_warnings();
    let scope = eval("({ events: [], $emit(type, payload) { this.events.push(payload); } })");
    let loaded = conversation(6, 2, 100, "c1");
    Reflect::set(&scope, &"loaded".into(), &loaded).unwrap();
    Reflect::set(&scope, &"identity".into(), &js(&json!({ "conversationId": "c1" }))).unwrap();
    eval("Object.freeze").unchecked_ref::<Function>().call1(&JsValue::UNDEFINED, &scope).unwrap();
    f.run(&scope).await;
    f.h.restore_warnings();
    assert!(same(&get(&scope, "loaded"), &loaded), "recall as loaded");
    assert_eq!(f.call_count(), 1, "the fold was paid for");
    let payload = parse(&to_json(&at(&get(&scope, "events"), 0)));
    let reason = reason(&payload);
    assert!(reason.starts_with("folded 8 entries (turns 1\u{2013}4) into msg-summary-1-4"), "{reason}");
    assert!(reason.contains("; but scope.loaded refused the new recall ("), "{reason}");
    assert!(reason.ends_with("), so the turn goes on with recall as loaded"), "{reason}");
    assert_eq!(payload["outputMemoryCount"], payload["inputMemoryCount"]);
    assert_eq!((&payload["droppedIds"], &payload["addedIds"]), (&json!([]), &json!([])), "recall did not change");
    let warnings = f.field("warnings");
    assert!(
        warnings[0].as_str().unwrap().contains("scope.loaded refused the recall this visit settled to"),
        "{warnings}"
    );
}

/// A provider may put a whole response body in an error's message: the
/// event and the warning quote its first 1,000 characters and say how long
/// it was, instead of carrying it into every clone of the event.
#[wasm_bindgen_test]
async fn a_long_error_message_is_quoted_in_part() {
    let body = format!("HTTP 500: {}", "<html>".repeat(4000));
    let f = Fixture::new(json!({ "reply": { "reject": body } }), small_config());
    f.h.capture_warnings();
    let result = f.fold(&conversation(6, 2, 100, "c1"), &js(&json!({ "conversationId": "c1" }))).await;
    f.h.restore_warnings();
    let reason = reason(&first_payload(&result)).to_owned();
    assert!(reason.ends_with("\u{2026} (24010 chars in all)"), "{}", &reason[reason.len() - 80..]);
    assert!(reason.contains("Cause: HTTP 500: <html><html>"), "{reason}");
    assert!(reason.len() < 1400, "{} chars", reason.len());
    let warning = f.field("warnings")[0].as_str().unwrap().to_owned();
    assert!(warning.len() < 1400 && warning.contains("(24010 chars in all)"), "{warning}");
}

/// A hook that calls the stage from inside every visit nests visits without
/// end. Each holds part of the instance's stack, and a few hundred deep it
/// would overflow, failing every conversation's visit in flight. So the
/// visit 32 deep refuses the next before it reads anything, and every
/// visit around it, and another conversation's, goes on.
#[wasm_bindgen_test]
async fn visits_nested_by_a_hook_that_calls_the_stage_stop_32_deep_and_the_rest_go_on() {
    let hook = eval(
        "(() => {
          const hook = { nesting: false, entered: 0, outcomes: [] };
          // Nests from the visits' first parts only: a fold's later clock
          // reading, after its call, would start a chain of its own.
          hook.now = () => {
            if (hook.nesting && hook.entered < 100) {
              const level = hook.entered++;
              hook.outcomes[level] = 'pending';
              hook.stage.fold(hook.loaded, { conversationId: `level-${level}` }).then(
                (result) => { hook.outcomes[level] = result.recall[0].id; },
                (error) => { hook.outcomes[level] = `${error.name}: ${error.message}`; },
              );
            }
            return 1000000;
          };
          return hook;
        })()",
    );
    Reflect::set(&hook, &"loaded".into(), &conversation(6, 2, 100, "nested")).unwrap();
    let f = Fixture::with_functions(
        json!({ "reply": { "text": "short summary" } }),
        small_config(),
        &[("now", get(&hook, "now"))],
    );
    Reflect::set(&hook, &"stage".into(), &f.stage).unwrap();
    let other = Fixture::new(json!({ "reply": { "gate": true, "text": "other summary" } }), small_config());
    let in_flight = other.start_fold(&conversation(6, 2, 100, "A"), &js(&json!({ "conversationId": "A" })));
    Reflect::set(&hook, &"nesting".into(), &JsValue::TRUE).unwrap();
    let outer = f.start_fold(&conversation(6, 2, 100, "outer"), &js(&json!({ "conversationId": "outer" })));
    Reflect::set(&hook, &"nesting".into(), &JsValue::FALSE).unwrap();
    let outer = JsFuture::from(outer).await.expect("the outermost visit resolves");
    assert_eq!(parse(&ids(&get(&outer, "recall")))[0], "msg-summary-1-4");
    JsFuture::from(sleep(5)).await.unwrap();
    let outcomes: Vec<String> = parse(&to_json(&get(&hook, "outcomes")))
        .as_array()
        .unwrap()
        .iter()
        .map(|outcome| outcome.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(outcomes.len(), 32, "the refused visit calls no hook: {outcomes:?}");
    assert!(outcomes[..31].iter().all(|outcome| outcome == "msg-summary-1-4"), "{outcomes:?}");
    assert!(
        outcomes[31].starts_with("RangeError: footprint-summarize: a visit started inside 32 visits still running"),
        "{}",
        outcomes[31]
    );
    assert!(outcomes[31].contains("Fix: do not call the stage from its own hooks"), "{}", outcomes[31]);
    other.h.release();
    let folded = JsFuture::from(in_flight).await.expect("the other conversation's visit resolves");
    assert_eq!(parse(&ids(&get(&folded, "recall")))[0], "msg-summary-1-4");
}

#[wasm_bindgen_test]
async fn a_store_that_never_answers_holds_no_run_but_the_one_that_called() {
    let f = Fixture::new(json!({ "store": "hang", "reply": { "gate": true, "text": "shared" } }), small_config());
    let loaded = conversation(6, 2, 100, "c1");
    let identity = js(&json!({ "conversationId": "c1" }));
    let leader = f.start_fold(&loaded, &identity);
    let follower = f.start_fold(&loaded, &identity);
    JsFuture::from(sleep(5)).await.unwrap();
    assert_eq!(f.call_count(), 1, "the second run waits for the first run's call");
    f.h.release();
    let followed = JsFuture::from(follower).await.unwrap();
    let payload = first_payload(&followed);
    assert!(reason(&payload).contains("the run that made the call writes it back"), "{payload}");
    assert_eq!(payload["scoreEvidence"]["coalesced"], true);
    assert_eq!(parse(&ids(&get(&followed, "recall")))[0], "msg-summary-1-4");
    // A later turn over the same span is not stuck behind the hung write
    // either: it settles from the published summary at once, without a call
    // (only the leader's own turn waits on its write, which never answers).
    let later = f.fold(&loaded, &identity).await;
    assert_eq!(f.call_count(), 1);
    assert_eq!(parse(&ids(&get(&later, "recall")))[0], "msg-summary-1-4");
    drop(leader);
}

#[wasm_bindgen_test]
async fn a_write_past_the_deadline_is_a_failed_write_and_the_turn_goes_on() {
    let f = Fixture::new(
        json!({ "store": "hang" }),
        json!({ "triggerMinEntries": 10, "preserveRecent": 4, "timeoutMs": 20 }),
    );
    f.h.capture_warnings();
    f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
    f.h.restore_warnings();
    let payload = f.only_event();
    assert!(reason(&payload).contains("write-back FAILED (timed out after 20 ms)"), "{payload}");
    assert_eq!(payload["scoreEvidence"]["persisted"], false);
    assert_eq!(f.recall_ids()[0], "msg-summary-1-4", "the fold is still used this turn");
}

#[wasm_bindgen_test]
async fn a_stage_holds_its_latch_only_from_its_first_refusal() {
    // Two stages refuse the same span in the same conversation: each latches
    // its own, and the second is asked once, not silenced by the first.
    let reply = json!({ "reply": { "text": "x".repeat(2000) } });
    let a = Fixture::new(reply.clone(), small_config());
    let b = Fixture::new(reply, small_config());
    for f in [&a, &b] {
        for _ in 0..2 {
            f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
        }
        assert_eq!(f.call_count(), 1, "asked once, then latched");
    }
}

/// A summarizer that never answers (no `timeoutMs`) holds no span text in
/// the instance every conversation shares: were each waiting visit to keep
/// a copy of its span there, enough of them would fail the instance.
#[wasm_bindgen_test]
async fn visits_waiting_on_a_summarizer_hold_no_span_text_in_the_instance() {
    let f = Fixture::new(json!({ "reply": { "hang": true } }), small_config());
    let memory = || {
        let memory = wasm_bindgen::memory().unchecked_into::<js_sys::WebAssembly::Memory>();
        memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as usize
    };
    // Spans of 1.6 M chars each (8 entries of 200,000).
    let waiting =
        |name: &str| f.start_fold(&conversation(6, 2, 200_000, name), &js(&json!({ "conversationId": name })));
    let first = waiting("warm");
    let before = memory();
    let rest: Vec<_> = (0..16).map(|n| waiting(&format!("c{n}"))).collect();
    assert_eq!(f.call_count(), 17, "every visit waits on its own call");
    let grown = memory() - before;
    assert!(grown < 8 << 20, "16 waiting visits grew the instance's memory by {grown} bytes");
    drop((first, rest));
}
