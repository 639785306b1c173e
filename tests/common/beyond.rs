//! SPEC §8: what the stage does beyond the original: `fold`, single flight, identities, deadlines, bad input, the clock, and `extractive`.

use super::*;

// ---------------------------------------------------------------- SPEC §8

#[wasm_bindgen_test]
async fn fold_returns_recall_and_events_and_shares_the_instance_latch() {
    let f = Fixture::new(json!({ "reply": { "text": "z".repeat(5000) } }), small_config());
    let loaded = conversation(6, 2, 100, "c1");
    let identity = js(&json!({ "conversationId": "c1" }));
    let first = f.fold(&loaded, &identity).await;
    assert_eq!(ids(&get(&first, "recall")), ids(&loaded));
    let events = get(&first, "events");
    assert_eq!(get(&at(&events, 0), "type"), EVENT_TYPE);
    assert!(reason(&parse(&to_json(&get(&at(&events, 0), "payload")))).contains("replacement-not-smaller"));
    f.run(&f.scope(&loaded)).await;
    assert!(reason(&f.only_event()).contains("not re-asked"), "scope run sees fold's latch");
    assert_eq!(f.field("onEvents").as_array().unwrap().len(), 2, "onEvent fires for fold too");
}

#[wasm_bindgen_test]
async fn sixteen_concurrent_runs_over_one_span_make_one_call_and_one_put() {
    let f = Fixture::new(json!({ "reply": { "gate": true, "text": "shared summary" } }), small_config());
    let loaded = conversation(6, 2, 100, "c1");
    let identity = js(&json!({ "conversationId": "c1" }));
    let runs = run_concurrently(&f.stage, &f.h, &loaded, &identity, 16);
    JsFuture::from(sleep(5)).await.unwrap();
    assert_eq!(f.call_count(), 1, "one call while all 16 are in flight");
    f.h.release();
    JsFuture::from(Promise::from(get(&runs, "done"))).await.unwrap();
    assert_eq!(f.call_count(), 1);
    assert_eq!(f.h.puts().length(), 1);
    let events = f.events();
    assert_eq!(events.len(), 16);
    let leaders: Vec<&Value> =
        events.iter().filter(|e| e["payload"]["scoreEvidence"]["summarizerCalled"] == true).collect();
    assert_eq!(leaders.len(), 1);
    let followers = events.iter().filter(|e| e["payload"]["scoreEvidence"]["coalesced"] == true).count();
    assert_eq!(followers, 15);
    let scopes = get(&runs, "scopes");
    for k in 0..16 {
        assert_eq!(
            at(&get(&at(&scopes, k), "loaded"), 0),
            get(&at(&f.h.puts(), 0), "entry"),
            "scope {k} holds the shared summary"
        );
    }
}

/// In flight together, spans of the same length from two conversations are
/// told apart by their keys (read only once a second run needs them).
#[wasm_bindgen_test]
async fn concurrent_spans_of_equal_length_in_two_conversations_are_not_coalesced() {
    let f = Fixture::new(json!({ "reply": { "gate": true, "text": "shared summary" } }), small_config());
    let run = |conversation_id: &str| {
        (conversation(6, 2, 100, conversation_id).into(), js(&json!({ "conversationId": conversation_id })))
    };
    let (calls, coalesced) = fold_together(&f, &[run("a"), run("b"), run("a")]).await;
    assert_eq!(calls, 2, "a and b each call; the second run of a waits for the first");
    assert_eq!(coalesced, [false, false, true]);
    assert_eq!(f.call_count(), 2);
}

/// Identities are keyed part by part: parts that read the same once run
/// together stay apart, a number is not its text, and null is absent.
#[wasm_bindgen_test]
async fn identities_are_keyed_part_by_part_with_null_as_absent() {
    let f = Fixture::new(json!({ "reply": { "gate": true, "text": "shared summary" } }), small_config());
    let loaded = conversation(6, 2, 100, "c1");
    let identities = [
        json!({ "tenant": "a", "principal": "bc", "conversationId": "c1" }),
        json!({ "tenant": "ab", "principal": "c", "conversationId": "c1" }),
        json!({ "conversationId": "c1" }),
        json!({ "tenant": null, "principal": null, "conversationId": "c1" }),
        json!({ "tenant": 7, "conversationId": "c1" }),
        json!({ "tenant": "7", "conversationId": "c1" }),
    ];
    let runs: Vec<(JsValue, JsValue)> =
        identities.iter().map(|identity| (loaded.clone().into(), js(identity))).collect();
    let (calls, coalesced) = fold_together(&f, &runs).await;
    assert_eq!(calls, 5, "only the null identity joins another's call");
    assert_eq!(coalesced, [false, false, false, true, false, false]);
}

/// `fold_held` over `runs`: the calls made while all were in flight, and
/// whether each run was coalesced (each must have folded its span into
/// msg-summary-1-4).
async fn fold_together(f: &Fixture, runs: &[(JsValue, JsValue)]) -> (u32, Vec<bool>) {
    let runs: Vec<(&JsValue, &JsValue)> = runs.iter().map(|(loaded, identity)| (loaded, identity)).collect();
    let (calls, results) = fold_held(f, &runs).await;
    let coalesced = results
        .iter()
        .map(|result| {
            assert_eq!(result["recall"][0]["id"], "msg-summary-1-4", "{result}");
            result["events"][0]["payload"]["scoreEvidence"]["coalesced"] == true
        })
        .collect();
    (calls, coalesced)
}

/// A conversation id that is not a string or a finite number (a symbol, a
/// bigint) names no conversation the stage can tell apart: such visits
/// never share a call, even with one whose id reads the same. (An identity
/// that throws while it is read is invalid input: `isolation.rs`.)
#[wasm_bindgen_test]
async fn identities_whose_conversation_id_is_not_a_string_or_number_never_share_a_call() {
    let f =
        Fixture::new(json!({ "reply": { "gate": true, "text": "shared summary" }, "store": "none" }), small_config());
    let loaded = conversation(6, 2, 100, "c1");
    let identities: Array = eval(
        "[{ conversationId: Symbol('c') }, { conversationId: 1n }, { conversationId: 2n },
          { conversationId: 1n }, { conversationId: Symbol('c') }, { conversationId: NaN }, { conversationId: NaN }]",
    )
    .unchecked_into();
    let runs: Vec<(JsValue, JsValue)> = identities.iter().map(|identity| (loaded.clone().into(), identity)).collect();
    let (calls, coalesced) = fold_together(&f, &runs).await;
    assert_eq!(calls, 7, "no run joins another's call");
    assert_eq!(coalesced, [false; 7]);
}

#[wasm_bindgen_test]
async fn refusals_for_identities_without_a_key_take_no_latch_slot() {
    let f = Fixture::new(json!({ "reply": { "text": "y".repeat(5000) } }), small_config());
    let loaded: JsValue = conversation(6, 2, 100, "A").into();
    let keyed = js(&json!({ "conversationId": "A" }));
    f.fold(&loaded, &keyed).await;
    let unkeyed = eval("({ conversationId: Symbol('A') })");
    let refusals = Latch::DEFAULT_CAPACITY as u32;
    for _ in 0..refusals {
        f.fold(&loaded, &unkeyed).await;
    }
    assert_eq!(f.call_count(), 1 + refusals, "a span without a key is asked every time");
    f.fold(&loaded, &keyed).await;
    assert_eq!(f.call_count(), 1 + refusals, "A's refusal is still latched");
}

/// The identity is keyed when a visit considers its fold: a caller who then
/// changes the same identity object and folds another conversation with the
/// same ids neither joins the first call nor latches the wrong span.
#[wasm_bindgen_test]
async fn an_identity_object_changed_after_a_visit_keeps_that_visit_keyed() {
    let f = Fixture::new(json!({ "reply": { "gate": true, "text": "shared summary" } }), small_config());
    let identity = js(&json!({ "conversationId": "A" }));
    let a = f.start_fold(&conversation(6, 2, 100, "A"), &identity);
    Reflect::set(&identity, &"conversationId".into(), &"B".into()).unwrap();
    let b = f.start_fold(&conversation(6, 2, 100, "B"), &identity);
    JsFuture::from(sleep(5)).await.unwrap();
    assert_eq!(f.call_count(), 2, "B is another conversation: its own call");
    f.h.release();
    for promise in [a, b] {
        let result = parse(&to_json(&JsFuture::from(promise).await.unwrap()));
        assert_eq!(result["events"][0]["payload"]["scoreEvidence"]["coalesced"], Value::Null, "{result}");
    }

    let refusing = Fixture::new(json!({ "reply": { "text": "y".repeat(5000) } }), small_config());
    let identity = js(&json!({ "conversationId": "A" }));
    let a = refusing.start_fold(&conversation(6, 2, 100, "A"), &identity);
    Reflect::set(&identity, &"conversationId".into(), &"B".into()).unwrap();
    JsFuture::from(a).await.unwrap();
    refusing.fold(&conversation(6, 2, 100, "B"), &js(&json!({ "conversationId": "B" }))).await;
    assert_eq!(refusing.call_count(), 2, "A's refusal latched A, not B");
    refusing.fold(&conversation(6, 2, 100, "A"), &js(&json!({ "conversationId": "A" }))).await;
    assert_eq!(refusing.call_count(), 2, "A is latched");
}

/// UTF-8 would write every lone surrogate as U+FFFD: ids that differ only in
/// one are still two spans.
#[wasm_bindgen_test]
async fn span_keys_tell_apart_ids_that_differ_in_a_lone_surrogate() {
    let f = Fixture::new(json!({ "reply": { "text": "y".repeat(5000) } }), small_config());
    let with_last_id = |id: &str| with_last_span_id(&eval(id));
    f.run(&f.scope(&with_last_id("'msg-4-1-\\uD800'"))).await;
    f.run(&f.scope(&with_last_id("'msg-4-1-\\uDBFF'"))).await;
    assert_eq!(f.call_count(), 2, "two different lone surrogates, two spans");
    f.run(&f.scope(&with_last_id("'msg-4-1-\\uD800'"))).await;
    assert_eq!(f.call_count(), 2, "the first span is latched");
}

/// A `now` clock that starts a fold of the same span (user code runs between
/// looking for a flight and starting one): still one call, and the outer run
/// waits for the one its clock started.
#[wasm_bindgen_test]
async fn a_clock_that_starts_the_same_fold_still_makes_one_call() {
    let holder = eval("({ stage: undefined, loaded: undefined, inner: undefined, started: false })");
    let now = eval(
        "(holder) => () => {
            if (!holder.started && holder.stage !== undefined) {
                holder.started = true;
                holder.inner = holder.stage.fold(holder.loaded, { conversationId: 'c1' });
            }
            return 1000;
        }",
    )
    .unchecked_ref::<Function>()
    .call1(&JsValue::UNDEFINED, &holder)
    .unwrap();
    let f = Fixture::with_functions(
        json!({ "reply": { "gate": true, "text": "shared summary" } }),
        small_config(),
        &[("now", now.clone())],
    );
    let loaded = conversation(6, 2, 100, "c1");
    Reflect::set(&holder, &"stage".into(), &f.stage).unwrap();
    Reflect::set(&holder, &"loaded".into(), &loaded).unwrap();
    let outer = f.start_fold(&loaded, &js(&json!({ "conversationId": "c1" })));
    JsFuture::from(sleep(5)).await.unwrap();
    assert_eq!(f.call_count(), 1, "one call while both are in flight");
    f.h.release();
    let outer = parse(&to_json(&JsFuture::from(outer).await.unwrap()));
    let inner = parse(&to_json(&JsFuture::from(Promise::from(get(&holder, "inner"))).await.unwrap()));
    assert_eq!(f.call_count(), 1);
    assert_eq!(outer["events"][0]["payload"]["scoreEvidence"]["coalesced"], true, "{outer}");
    assert_eq!(inner["events"][0]["payload"]["scoreEvidence"]["summarizerCalled"], true, "{inner}");
}

#[wasm_bindgen_test]
async fn two_conversations_with_identical_ids_fold_independently() {
    let f = Fixture::new(json!({ "reply": { "text": "w".repeat(5000) } }), small_config());
    let a = conversation(6, 2, 100, "a");
    let b = conversation(6, 2, 100, "b");
    f.fold(&a, &js(&json!({ "conversationId": "a" }))).await;
    f.fold(&b, &js(&json!({ "conversationId": "b" }))).await;
    assert_eq!(f.call_count(), 2, "b is not silenced by a's refusal");
    f.fold(&a, &js(&json!({ "conversationId": "a" }))).await;
    assert_eq!(f.call_count(), 2, "a stays latched");
}

#[wasm_bindgen_test]
async fn a_never_settling_summarizer_times_out_and_its_signal_is_aborted() {
    let f = Fixture::new(
        json!({ "shape": "provider", "reply": { "hang": true } }),
        json!({ "triggerMinEntries": 10, "preserveRecent": 4, "timeoutMs": 30 }),
    );
    f.h.capture_warnings();
    f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
    f.h.restore_warnings();
    let payload = f.only_event();
    assert!(reason(&payload).ends_with("Cause: timed out after 30 ms"), "{payload}");
    assert_eq!(f.field("signals"), json!([{ "aborted": true }]));

    let late = Fixture::new(
        json!({ "reply": { "lateText": "late", "afterMs": 60 } }),
        json!({ "triggerMinEntries": 10, "preserveRecent": 4, "timeoutMs": 10 }),
    );
    late.h.capture_warnings();
    late.run(&late.scope(&conversation(6, 2, 100, "c1"))).await;
    JsFuture::from(sleep(100)).await.unwrap();
    late.h.restore_warnings();
    assert!(reason(&late.only_event()).contains("summarizer-failed"));
    assert_eq!(late.field("puts"), json!([]), "a late answer is ignored, never written");
    assert_eq!(late.field("sets"), json!([]));
}

#[wasm_bindgen_test]
async fn a_span_shorter_than_its_label_is_declined_without_a_call() {
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 0, "preserveRecent": 1 }));
    f.run(&f.scope(&conversation(4, 1, 10, "c1"))).await;
    assert_eq!(f.call_count(), 0);
    let payload = f.only_event();
    assert!(reason(&payload).contains("replacement-not-smaller") && reason(&payload).contains("no call made"));
    assert_eq!(
        payload["scoreEvidence"],
        json!({ "spanEntries": 3, "spanChars": 30, "summarizerCalled": false, "labelChars": utf16_len(&label(1.0, 3.0, 3, "a model")) + 2, "predicted": true })
    );
}

#[wasm_bindgen_test]
async fn invalid_input_leaves_recall_untouched_and_is_explained() {
    // (recall, reason prefix, invalidIndex, invalidField)
    let cases: &[(&str, &str, Option<u32>, &str)] = &[
        ("'not an array'", "invalid-input: loaded is a string", None, "loaded"),
        ("[E(0), null]", "invalid-input: loaded[1] is null", Some(1), "entry"),
        ("[E(0), 5]", "invalid-input: loaded[1] is a number (5)", Some(1), "entry"),
        ("[E(0), { value: { content: 'x' } }]", "invalid-input: loaded[1].id is undefined", Some(1), "id"),
        ("[{ ...E(0), id: 7 }]", "invalid-input: loaded[0].id is a number (7)", Some(0), "id"),
        ("[E(0), { id: 'b', value: null }]", "invalid-input: loaded[1].value is null", Some(1), "value"),
        (
            "[E(0), { id: 'b', value: { content: 42 } }]",
            "invalid-input: loaded[1].value.content is a number (42)",
            Some(1),
            "value.content",
        ),
        (
            "[E(0), { id: 'b', value: { content: {} } }]",
            "invalid-input: loaded[1].value.content is an object",
            Some(1),
            "value.content",
        ),
        (
            "[E(0), { ...E(1), source: { turn: NaN } }]",
            "invalid-input: loaded[1].source.turn is a number (NaN)",
            Some(1),
            "source.turn",
        ),
        (
            "[E(0), { ...E(1), source: { turn: '3' } }]",
            "invalid-input: loaded[1].source.turn is a string",
            Some(1),
            "source.turn",
        ),
        (
            "[E(0), { ...E(1), updatedAt: Infinity }]",
            "invalid-input: loaded[1].updatedAt is a number (Infinity)",
            Some(1),
            "updatedAt",
        ),
    ];
    // Below the trigger too: every visit validates, fold or not.
    for (&(loaded, expected, index, field), trigger) in cases.iter().flat_map(|case| [(case, 0), (case, 100)]) {
        let f = Fixture::new(json!({}), json!({ "triggerMinEntries": trigger, "preserveRecent": 0 }));
        f.h.capture_warnings();
        let value = eval(&format!(
            "(() => {{ const E = (i) => ({{ id: 'e' + i, value: {{ role: 'user', content: 'x'.repeat(900) }}, source: {{ turn: i }}, updatedAt: i }}); return {loaded}; }})()"
        ));
        let scope = eval("({ loaded: undefined, events: [], $emit(t, p) { this.events.push(p) } })");
        Reflect::set(&scope, &"loaded".into(), &value).unwrap();
        let stage: &Function = f.stage.unchecked_ref();
        JsFuture::from(Promise::from(stage.call1(&JsValue::UNDEFINED, &scope).unwrap())).await.unwrap();
        f.h.restore_warnings();
        assert!(same(&get(&scope, "loaded"), &value), "{loaded}: recall untouched");
        let events = parse(&to_json(&get(&scope, "events")));
        assert_eq!(events.as_array().unwrap().len(), 1, "{loaded}, trigger {trigger}");
        let text = events[0]["reason"].as_str().unwrap();
        assert!(text.starts_with(expected), "{loaded}, trigger {trigger}: {text}");
        let evidence = match index {
            Some(index) => json!({ "summarizerCalled": false, "invalidIndex": index, "invalidField": field }),
            None => json!({ "summarizerCalled": false, "invalidField": field }),
        };
        assert_eq!(events[0]["scoreEvidence"], evidence, "{loaded}");
        assert_eq!(f.call_count(), 0);
        assert_eq!(f.field("warnings").as_array().unwrap().len(), 1);
    }
    // Null or absent content, and null turn/updatedAt, are valid.
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 100 }));
    let valid = eval(
        "[{ id: 'a', value: { content: null } }, { id: 'b', value: {}, source: { turn: null }, updatedAt: null }]",
    );
    f.run(&f.scope(&valid)).await;
    assert_eq!(f.events().len(), 0);
}

#[wasm_bindgen_test]
async fn a_broken_clock_declines_the_fold_without_a_call() {
    for (now, expected) in [
        ("() => NaN", "invalid-input: the configured `now` clock returned a number (NaN)"),
        (
            "() => { throw new Error('no time') }",
            "invalid-input: the configured `now` clock returned nothing (it threw: no time)",
        ),
    ] {
        let f = Fixture::with_functions(json!({}), json!({ "triggerMinEntries": 10 }), &[("now", eval(now))]);
        f.h.capture_warnings();
        f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
        f.h.restore_warnings();
        assert_eq!(f.call_count(), 0, "{now}");
        let payload = f.only_event();
        assert!(reason(&payload).starts_with(expected), "{}", reason(&payload));
        assert_eq!(payload["scoreEvidence"], json!({ "summarizerCalled": false, "invalidField": "now" }));
    }
}

#[wasm_bindgen_test]
async fn a_clock_that_breaks_during_the_call_stamps_the_reading_from_before_it() {
    let now = "(() => { let reads = 0; return () => { if (reads++ === 0) return 1000; throw new Error('gone'); }; })()";
    let f = Fixture::with_functions(json!({}), small_config(), &[("now", eval(now))]);
    f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
    assert_eq!(f.call_count(), 1);
    let entry = &f.field("puts")[0]["entry"];
    assert_eq!(entry["metadata"]["summarizes"]["summarizedAtMs"], 1000);
    assert_eq!(entry["lastAccessedAt"], 1000);
}

#[wasm_bindgen_test]
async fn promises_with_their_own_then_are_awaited_as_await_would() {
    // `await` follows a real promise through its built-in reaction, ignoring
    // an own `then` or `constructor`; the stage's glue must too, with or
    // without a deadline, or a throwing `then` would escape into Wasm (or a
    // lying species hand Rust something that is not an outcome) and strand
    // the span's flight so that the next fold of it waited forever.
    let own_then_reply = json!({ "reply": { "ownThen": "short summary" } });
    for (options, extra) in [
        (own_then_reply.clone(), json!({})),
        (own_then_reply, json!({ "timeoutMs": 60_000 })),
        (json!({ "reply": { "constructorTrap": "short summary" } }), json!({})),
        (json!({ "reply": { "constructorTrap": "short summary" } }), json!({ "timeoutMs": 60_000 })),
        (json!({ "shape": "provider", "reply": { "ownThen": "short summary" }, "store": "ownThen" }), json!({})),
    ] {
        let mut config = small_config();
        config.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let f = Fixture::new(options.clone(), config);
        for visit in 1..=2 {
            f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
            assert_eq!(f.call_count(), visit, "{options} {extra}");
            assert_eq!(f.recall_ids()[0], "msg-summary-1-4", "{options} {extra}");
        }
        let events = f.events();
        assert!(events.iter().all(|e| reason(&e["payload"]).starts_with("folded 8 entries")), "{events:#?}");
        if options["store"] == "ownThen" {
            assert!(events.iter().all(|e| e["payload"]["scoreEvidence"]["persisted"] == true), "{events:#?}");
        }
    }
}

#[wasm_bindgen_test]
async fn stage_works_unbound_and_returns_a_real_promise() {
    let f = Fixture::new(json!({}), small_config());
    let unbound: Function = f.stage.clone().unchecked_into();
    let scope = f.scope(&conversation(6, 2, 100, "c1"));
    let promise = unbound.call1(&JsValue::NULL, &scope).unwrap();
    assert!(promise.is_instance_of::<Promise>());
    JsFuture::from(Promise::from(promise)).await.unwrap();
    assert_eq!(f.recall_ids()[0], "msg-summary-1-4");
}

// ---------------------------------------------------------------- extractive

#[wasm_bindgen_test]
fn extractive_is_deterministic_bounded_and_keeps_facts() {
    let messages = eval(
        "[{ role: 'system', content: 'instruction' },
          { role: 'user', content: 'Hello! My order #7731 never arrived. I paid $42.10 on May 2.' },
          { role: 'assistant', content: 'Thanks. I will refund $42.10 to your card by Friday.' },
          { role: 'user', content: 'Ok. Please send updates by SMS instead of email. Great.' },
          { role: 'assistant', content: 'Thanks! Okay. Sure. Great. Perfect. Got it. Sounds good. No problem. Have a nice day. One moment.' },
          { role: 'user', content: 'Thank you so much. You are welcome. Let me check. Okay. Sure. Alright. Noted. Understood. Of course.' }]",
    );
    let first = api::extractive_summary(messages.clone(), 1200.0).unwrap();
    assert_eq!(first, api::extractive_summary(messages.clone(), 1200.0).unwrap(), "byte-identical");
    for fact in ["#7731", "$42.10", "May 2", "SMS instead of email", "by Friday"] {
        assert!(first.contains(fact), "{fact} kept: {first}");
    }
    for filler in ["Hello!", "Great.", "instruction"] {
        assert!(!first.contains(filler), "{filler} dropped: {first}");
    }
    for budget in [0.0, 30.0, 80.0] {
        let text = api::extractive_summary(messages.clone(), budget).unwrap();
        assert!(utf16_len(&text) <= budget as usize);
    }
    assert!(api::extractive_budget(js(&json!({ "maxChars": -1 }))).is_err());
    assert_eq!(api::extractive_budget(JsValue::UNDEFINED).unwrap(), 1200.0);
    // What it copies into the shared instance is bounded as a recall is: a
    // role's first 100 chars, and 16 Mi chars of content in all (more is
    // this call's failure, not the instance's).
    let long_role =
        eval("[{ role: 'r'.repeat(5000), content: 'Order #7731 ships on May 2. ' + 'Thanks. '.repeat(50) }]");
    let text = api::extractive_summary(long_role, 1200.0).unwrap();
    assert_eq!(text, format!("{}: Order #7731 ships on May 2.", "r".repeat(100)));
    let too_much = eval("Array.from({ length: 5 }, () => ({ role: 'user', content: 'x'.repeat(4 * 1024 * 1024) }))");
    let error = JsValue::from(api::extractive_summary(too_much, 1200.0).unwrap_err());
    let message = get(&error, "message").as_string().unwrap();
    assert!(message.contains("received 5 messages holding more than 16777216 chars of content"), "{message}");
    assert_eq!(api::extractive_budget(js(&json!({ "maxChars": 300 }))).unwrap(), 300.0);
    // A budget a class or a prototype gives is read too.
    for options in ["Object.create({ maxChars: 60 })", "new (class { get maxChars() { return 60; } })()"] {
        assert_eq!(api::extractive_budget(eval(options)).unwrap(), 60.0, "{options}");
    }
    // Options are checked as summarize's are: nothing is ignored silently.
    for (options, says) in [
        ("({ maxchars: 300 })", "received an object with `maxchars`"),
        ("[300]", "received an array (length 1)"),
        (
            "({ get maxChars() { throw new Error('lazy') } })",
            "received an object that cannot be read (reading it threw: lazy)",
        ),
    ] {
        let error = JsValue::from(api::extractive_budget(eval(options)).unwrap_err());
        let message = get(&error, "message").as_string().unwrap();
        assert!(message.starts_with("extractive(options): `options` must be an object like { maxChars }"), "{message}");
        assert!(message.contains(says), "{options}: {message}");
    }
}
