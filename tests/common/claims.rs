//! Claims: a fleet of processes sharing one store pays for each span once.

use super::*;

// ---------------------------------------------------------------- claims (a fleet sharing one store)

/// A fixture whose store has `putIfVersion` (`mode`: see `options.claims`
/// in fixtures.js), with claims on, a fixed clock and a 30 s lease.
fn claims_fixture(mode: &str, options: Value) -> Fixture {
    let mut all = json!({ "claims": mode });
    all.as_object_mut().unwrap().extend(options.as_object().unwrap().clone());
    let mut extra = small_config();
    extra.as_object_mut().unwrap().extend([("claims".into(), json!(true)), ("claimLeaseMs".into(), json!(30000))]);
    Fixture::with_functions(all, extra, &[("now", eval("() => 5000"))])
}

#[wasm_bindgen_test]
async fn the_leader_claims_the_span_pays_and_its_summary_covers_the_claim() {
    let f = claims_fixture("ok", json!({}));
    let scope = f.scope(&conversation(6, 2, 100, "c1"));
    f.run(&scope).await;
    let writes = f.field("conditionalWrites");
    assert_eq!(writes.as_array().unwrap().len(), 1, "one claim: {writes:#}");
    assert_eq!(writes[0]["expectedVersion"], 0, "0: only if no live claim is there");
    assert_eq!(writes[0]["identity"], json!({ "conversationId": "c1" }));
    let claim_js = get(&at(&get(f.h.as_ref(), "conditionalWrites"), 0), "entry");
    assert!(is_plain(&claim_js), "the claim is a plain object");
    assert_eq!(
        keys_of(&claim_js),
        r#"["id","value","metadata","version","createdAt","updatedAt","lastAccessedAt","accessCount","ttl","tier","source"]"#
    );
    let version = writes[0]["entry"]["version"].as_f64().unwrap();
    assert!(
        (5000.0 * 1024.0..5001.0 * 1024.0).contains(&version),
        "the ms it was claimed at, × 1,024, + 0..1,024: {version}"
    );
    assert_eq!(
        writes[0]["entry"],
        json!({
            "id": "msg-summary-claim-1-4",
            "value": { "role": "system", "content": "" },
            "metadata": { "summaryClaim": { "fromTurn": 1, "toTurn": 4, "entryCount": 8, "claimedAtMs": 5000, "leaseMs": 30000 } },
            "version": version as u64,
            "createdAt": 99,
            "updatedAt": 99,
            "lastAccessedAt": 5000,
            "accessCount": 0,
            "ttl": 35000,
            "tier": "cold",
            "source": { "turn": 4, "identity": { "conversationId": "c1" } }
        }),
        "dated just before the oldest loaded entry, its lease ending at ttl"
    );
    assert_eq!(f.call_count(), 1);
    let summary = &f.field("puts")[0]["entry"];
    let mut covered = id_list(1..=4, 2);
    covered.push("msg-summary-claim-1-4".into());
    assert_eq!(summary["metadata"]["summarizes"]["coveredIds"], json!(covered), "the summary names its claim");
    assert_eq!(summary["metadata"]["summarizes"]["entryCount"], 8);
    let payload = f.only_event();
    assert_eq!(payload["scoreEvidence"]["claimId"], "msg-summary-claim-1-4");
    assert!(reason(&payload).contains("claimed for the fleet as msg-summary-claim-1-4"), "{}", reason(&payload));

    // A later turn loads the claim and the summary: the claim is covered and left out.
    let loaded = Array::of2(&get(&at(&f.h.puts(), 0), "entry"), &claim_js);
    for entry in conversation(6, 2, 100, "c1").iter().skip(8) {
        loaded.push(&entry);
    }
    let later = f.fold(&loaded, &js(&json!({ "conversationId": "c1" }))).await;
    assert_eq!(ids(&get(&later, "recall")), r#"["msg-summary-1-4","msg-5-0","msg-5-1","msg-6-0","msg-6-1"]"#);
    assert_eq!(f.call_count(), 1, "no second call");
    assert!(
        api::summary_coverage(claim_js.clone()).unwrap().is_undefined(),
        "summaryCoverage never takes a claim for a summary"
    );
    assert!(!api::is_summary_entry(claim_js.clone()), "nor does isSummaryEntry");
    assert!(api::is_summary_claim(claim_js), "isSummaryClaim knows it");
    assert!(!api::is_summary_claim(get(&at(&f.h.puts(), 0), "entry")), "a summary is no claim");
    assert!(!api::is_summary_claim(JsValue::NULL));
    assert!(!api::is_summary_claim(eval("({ get metadata() { throw new Error('x') } })")));
}

#[wasm_bindgen_test]
async fn a_span_claimed_elsewhere_makes_no_call_and_says_where() {
    let f = claims_fixture("taken", json!({}));
    let loaded = conversation(6, 2, 100, "c1");
    f.run(&f.scope(&loaded)).await;
    assert_eq!(f.call_count(), 0, "another process is paying for this span");
    assert_eq!(f.h.puts().length(), 0, "and writing it");
    assert_eq!(f.field("sets"), json!([]), "recall is served verbatim: the loaded recall, unassigned");
    let payload = f.only_event();
    assert!(reason(&payload).starts_with("summarized-elsewhere: another process holds the claim msg-summary-claim-1-4"));
    assert_eq!(
        payload["scoreEvidence"],
        json!({ "spanEntries": 8, "spanChars": 800, "summarizerCalled": false, "claimId": "msg-summary-claim-1-4", "claimedElsewhere": true })
    );
    assert_eq!(payload["addedIds"], json!([]));
}

#[wasm_bindgen_test]
async fn a_claim_the_store_fails_makes_no_call_and_warns_once() {
    for (mode, cause) in [("reject", "ECONNREFUSED"), ("bad", "resolved to a string (\"OK\") instead of { applied")] {
        let f = claims_fixture(mode, json!({}));
        f.h.capture_warnings();
        let loaded = conversation(6, 2, 100, "c1");
        f.run(&f.scope(&loaded)).await;
        f.run(&f.scope(&loaded)).await;
        f.h.restore_warnings();
        assert_eq!(f.call_count(), 0, "{mode}: paying without a claim could pay once per process");
        assert_eq!(f.field("sets"), json!([]), "{mode}: verbatim");
        let events = f.events();
        assert_eq!(events.len(), 2, "{mode}: every turn says so");
        let payload = &events[0]["payload"];
        assert!(reason(payload).starts_with("claim-failed:") && reason(payload).contains(cause), "{}", reason(payload));
        assert_eq!(payload["scoreEvidence"]["claimFailed"], true);
        let warnings = f.field("warnings");
        assert_eq!(warnings.as_array().unwrap().len(), 1, "{mode}: one warning per stage: {warnings:#}");
        let warning = warnings[0].as_str().unwrap();
        assert!(warning.contains("the store refused it") && warning.contains(cause), "{warning}");
    }
}

#[wasm_bindgen_test]
async fn a_failed_call_gives_its_claim_up_so_the_next_turn_retries() {
    let f = claims_fixture("ok", json!({ "reply": { "reject": "HTTP 503" }, "storeNow": 6000 }));
    let loaded = conversation(6, 2, 100, "c1");
    f.run(&f.scope(&loaded)).await;
    let writes = f.field("conditionalWrites");
    assert_eq!(writes.as_array().unwrap().len(), 2, "claimed, then given up: {writes:#}");
    let version = writes[0]["entry"]["version"].as_f64().unwrap();
    assert_eq!(writes[1]["expectedVersion"], version, "only over this run's own claim");
    assert_eq!(writes[1]["entry"]["version"], version + 1.0);
    assert_eq!(writes[1]["entry"]["ttl"], 5001, "expiring a millisecond from now");
    let payload = f.only_event();
    assert!(reason(&payload).contains("its claim is given up"), "{}", reason(&payload));
    assert_eq!(payload["scoreEvidence"]["claimId"], "msg-summary-claim-1-4");
    assert_eq!(payload["scoreEvidence"]["claimGivenUp"], true);
    // The next turn claims the span again (the store's clock is past the give-up) and calls again.
    f.run(&f.scope(&loaded)).await;
    assert_eq!(f.call_count(), 2);
    let writes = f.field("conditionalWrites");
    assert_eq!(writes[2]["expectedVersion"], 0);
}

#[wasm_bindgen_test]
async fn concurrent_runs_of_one_stage_claim_once_and_pay_once() {
    let f = claims_fixture("ok", json!({ "reply": { "gate": true, "text": "short summary" } }));
    let loaded = conversation(6, 2, 100, "c1");
    let identity = js(&json!({ "conversationId": "c1" }));
    let runs: Vec<Promise> = (0..4).map(|_| f.start_fold(&loaded, &identity)).collect();
    // Let the claim resolve and the call start, then answer it.
    JsFuture::from(sleep(5)).await.unwrap();
    f.h.release();
    let mut coalesced = 0;
    for run in runs {
        let result = JsFuture::from(run).await.unwrap();
        let evidence = first_payload(&result)["scoreEvidence"].clone();
        coalesced += usize::from(evidence["coalesced"] == true);
        assert_eq!(ids(&get(&result, "recall")), r#"["msg-summary-1-4","msg-5-0","msg-5-1","msg-6-0","msg-6-1"]"#);
    }
    assert_eq!((f.call_count(), coalesced), (1, 3));
    assert_eq!(f.field("conditionalWrites").as_array().unwrap().len(), 1, "one claim");
    assert_eq!(f.h.puts().length(), 1, "one write");
}

#[wasm_bindgen_test]
async fn a_store_without_put_if_version_folds_as_before_and_says_so_once() {
    let f = Fixture::new(json!({}), json!({ "triggerMinEntries": 10, "preserveRecent": 4, "claims": true }));
    f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
    f.run(&f.scope(&conversation(6, 2, 100, "c2"))).await;
    assert_eq!(f.call_count(), 2);
    let events = f.events();
    assert_eq!(events[0]["payload"]["scoreEvidence"]["claimsUnsupported"], true);
    assert!(reason(&events[0]["payload"]).contains("no putIfVersion"));
    assert!(events[1]["payload"]["scoreEvidence"].get("claimsUnsupported").is_none(), "said once");
    let summary = &f.field("puts")[0]["entry"];
    assert_eq!(summary["metadata"]["summarizes"]["coveredIds"], json!(id_list(1..=4, 2)), "no claim to name");
}

#[wasm_bindgen_test]
async fn claims_in_recall_are_left_out_and_named_in_dropped_ids() {
    // Claims off: a stage never reads a claim as a message either.
    let f = Fixture::new(json!({}), small_config());
    let claim = eval(
        "({ id: 'msg-summary-claim-1-4', value: { role: 'system', content: '' }, metadata: { summaryClaim: \
         { fromTurn: 1, toTurn: 4, entryCount: 8, claimedAtMs: 1, leaseMs: 60000 } }, version: 1, createdAt: 99, \
         updatedAt: 99, lastAccessedAt: 1, accessCount: 0, ttl: 60001 })",
    );
    let loaded = Array::of1(&claim);
    for entry in conversation(3, 2, 100, "c1").iter() {
        loaded.push(&entry);
    }
    f.run(&f.scope(&loaded)).await;
    assert_eq!(f.recall_ids(), id_list(1..=3, 2));
    let payload = f.only_event();
    assert_eq!(reason(&payload), "1 fleet claim left out of recall \u{2014} no new call this turn");
    assert_eq!(payload["droppedIds"], json!(["msg-summary-claim-1-4"]));
    assert_eq!(f.call_count(), 0);
}

#[wasm_bindgen_test]
fn claim_options_are_checked_at_build_time() {
    let store = "store: { put() {} }";
    let cases = [
        (format!("({{ llm: async () => '', {store}, claims: 'yes' }})"), "TypeError", "`claims`", "a string (\"yes\")"),
        (format!("({{ llm: async () => '', {store}, claimLeaseMs: 10 }})"), "Error", "`claimLeaseMs`", "nothing"),
        ("({ llm: async () => '', claims: true })".to_owned(), "TypeError", "`store`", "putIfVersion"),
        (
            format!("({{ llm: async () => '', {store}, claims: true, claimLeaseMs: -1 }})"),
            "RangeError",
            "`claimLeaseMs`",
            "-1",
        ),
        (
            format!("({{ llm: async () => '', {store}, claims: true, timeoutMs: 1000, claimLeaseMs: 2500 }})"),
            "RangeError",
            "`claimLeaseMs`",
            "at least 3000: what the claim, the call and the write may take together (3 \u{d7} timeoutMs)",
        ),
        // A putIfVersion that is there but is no function would fail every turn's claim.
        (
            "({ llm: async () => '', store: { put() {}, putIfVersion: 5 }, claims: true })".to_owned(),
            "TypeError",
            "`store.putIfVersion`",
            "received a number (5)",
        ),
        (
            "({ llm: async () => '', store: { put() {}, get putIfVersion() { throw new Error('no') } }, claims: true })"
                .to_owned(),
            "TypeError",
            "`store.putIfVersion`",
            "received unreadable (reading it threw: no)",
        ),
    ];
    for (config, class, key, needle) in cases {
        let (got_class, message) = refusal(&config);
        assert_eq!(got_class, class, "{config}: {message}");
        assert!(message.contains(key) && message.contains(needle) && message.contains("Fix"), "{config}: {message}");
    }
    assert!(api::summarize(eval(&format!("({{ llm: async () => '', {store}, claims: false }})"))).is_ok());
    // A store without putIfVersion runs as without claims, and says so in its first event.
    assert!(api::summarize(eval(&format!("({{ llm: async () => '', {store}, claims: true }})"))).is_ok());
    let odd = "({ llm: async () => '', store: { put() {}, putIfVersion: 5 }, claims: false })";
    assert!(api::summarize(eval(odd)).is_ok(), "without claims, putIfVersion is never read");
}

#[wasm_bindgen_test]
async fn a_give_up_the_store_refuses_is_said_and_the_claim_waits_for_its_lease() {
    let f = claims_fixture("keep", json!({ "reply": { "reject": "HTTP 503" } }));
    f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
    assert_eq!(f.field("conditionalWrites").as_array().unwrap().len(), 2, "claimed, then tried to give it up");
    let payload = f.only_event();
    assert!(reason(&payload).contains("the store refused to give its claim up"), "{}", reason(&payload));
    assert_eq!(payload["scoreEvidence"]["claimGivenUp"], false);
}

#[wasm_bindgen_test]
async fn a_claim_is_kept_through_a_refused_answer_and_given_up_after_a_failed_write() {
    // Not smaller: the same span gives the same answer, so the claim spares the fleet that call.
    let f = claims_fixture("ok", json!({ "reply": { "text": "x".repeat(2000) } }));
    f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
    assert_eq!(f.field("conditionalWrites").as_array().unwrap().len(), 1, "no give-up");
    let payload = f.only_event();
    assert!(reason(&payload).starts_with("replacement-not-smaller"), "{}", reason(&payload));
    assert_eq!(payload["scoreEvidence"]["claimId"], "msg-summary-claim-1-4");
    // A write-back the store refuses: the fold serves this turn, and with no
    // summary for the fleet to load, the claim is given up.
    let g = claims_fixture("ok", json!({ "store": "reject" }));
    g.run(&g.scope(&conversation(6, 2, 100, "c1"))).await;
    assert_eq!(g.field("conditionalWrites").as_array().unwrap().len(), 2, "claimed, then given up");
    let payload = g.only_event();
    assert!(reason(&payload).contains("write-back FAILED (disk full)"), "{}", reason(&payload));
    assert!(reason(&payload).ends_with("its claim is given up, so a later turn retries"), "{}", reason(&payload));
    let evidence = &payload["scoreEvidence"];
    assert_eq!((evidence["persisted"].clone(), evidence["claimGivenUp"].clone()), (json!(false), json!(true)));
}

#[wasm_bindgen_test]
async fn waiting_runs_never_wait_for_the_leaders_give_up() {
    // The call fails and the give-up never answers: the run waiting on the
    // leader settles anyway (no deadline is set, so only the leader waits).
    let f = claims_fixture("hangGiveUp", json!({ "reply": { "reject": "HTTP 503" } }));
    let loaded = conversation(6, 2, 100, "c1");
    let identity = js(&json!({ "conversationId": "c1" }));
    let _leader = f.start_fold(&loaded, &identity);
    let follower = JsFuture::from(f.start_fold(&loaded, &identity)).await.unwrap();
    let payload = first_payload(&follower);
    assert!(reason(&payload).starts_with("summarizer-failed"), "{payload}");
    assert_eq!(payload["scoreEvidence"]["coalesced"], true);
    assert_eq!(f.call_count(), 1);
}

#[wasm_bindgen_test]
async fn a_claim_past_the_deadline_makes_no_call_and_is_given_up_behind_it() {
    let f = Fixture::with_functions(
        json!({ "claims": "slow", "claimDelayMs": 60 }),
        json!({ "triggerMinEntries": 10, "preserveRecent": 4, "claims": true, "timeoutMs": 20, "claimLeaseMs": 30000 }),
        &[("now", eval("() => 5000"))],
    );
    let result = f.fold(&conversation(6, 2, 100, "c1"), &js(&json!({ "conversationId": "c1" }))).await;
    let payload = first_payload(&result);
    assert!(
        reason(&payload).starts_with("claim-failed:") && reason(&payload).contains("timed out after 20 ms"),
        "{payload}"
    );
    assert_eq!(f.call_count(), 0);
    // The late claim lands, and the give-up started at the deadline lands after it.
    JsFuture::from(sleep(150)).await.unwrap();
    let writes = f.field("conditionalWrites");
    assert_eq!(writes.as_array().unwrap().len(), 2, "{writes:#}");
    let version = writes[0]["entry"]["version"].as_f64().unwrap();
    assert_eq!(writes[1]["expectedVersion"], version);
    assert_eq!(f.field("rows")["msg-summary-claim-1-4"]["version"], version + 1.0, "the late claim is given up");
}

/// A store checked at build may break later (a revoked Proxy, a swapped
/// method): each turn's claim then fails, and says why.
#[wasm_bindgen_test]
async fn a_put_if_version_that_cannot_be_read_is_a_failed_claim() {
    for (broken, said) in [
        ("{ get() { throw new Error('proxy revoked') } }", "reading store.putIfVersion threw: proxy revoked"),
        ("{ value: 'yes' }", "store.putIfVersion is a string (\"yes\"), not a function"),
    ] {
        let store = eval("({ put: async () => {}, putIfVersion: async () => ({ applied: true }) })");
        let f = Fixture::with_functions(
            json!({}),
            json!({ "triggerMinEntries": 10, "preserveRecent": 4, "claims": true }),
            &[("store", store.clone())],
        );
        let breaks = format!("(store) => Object.defineProperty(store, 'putIfVersion', {broken})");
        eval(&breaks).unchecked_into::<Function>().call1(&JsValue::UNDEFINED, &store).unwrap();
        f.run(&f.scope(&conversation(6, 2, 100, "c1"))).await;
        assert_eq!(f.call_count(), 0);
        assert!(reason(&f.only_event()).contains(said), "{}", reason(&f.only_event()));
    }
}

#[wasm_bindgen_test]
async fn a_span_that_cannot_be_read_again_gives_its_claim_up() {
    let f = Fixture::with_functions(
        json!({ "shape": "provider", "claims": "ok" }),
        json!({ "triggerMinEntries": 4, "preserveRecent": 1, "claims": true }),
        &[("now", eval("() => 5000"))],
    );
    let loaded = eval(
        "Array.from({ length: 6 }, (_, i) => ({ id: 'm' + i, value: { role: i === 0 ? Object.create(null) : 'user', content: 'x'.repeat(400) }, source: { turn: i } }))",
    );
    let result = f.fold(&loaded, &js(&json!({ "conversationId": "c1" }))).await;
    let payload = first_payload(&result);
    assert!(reason(&payload).starts_with("invalid-input: the span of 5 entries"), "{payload}");
    assert!(reason(&payload).contains("its claim is given up"), "{payload}");
    assert_eq!(payload["scoreEvidence"]["claimId"], "msg-summary-claim-0-4");
    assert_eq!(f.field("conditionalWrites").as_array().unwrap().len(), 2, "claimed, then given up");
    assert_eq!(f.call_count(), 0);
}

#[wasm_bindgen_test]
async fn the_give_up_calls_the_put_if_version_the_claim_read() {
    // A store whose `putIfVersion` is read through a getter: the claim reads
    // it once, and the give-up after the failed call uses that same function.
    let h = Harness::new(js(&json!({ "claims": "ok", "reply": { "reject": "HTTP 503" } })));
    let mut extra = small_config();
    extra.as_object_mut().unwrap().extend([("claims".into(), json!(true)), ("claimLeaseMs".into(), json!(30000))]);
    let config = h.config(js(&extra));
    let store = get(&config, "store");
    let stage = api::summarize(config).expect("valid config");
    let reads = eval(
        "(store) => { const put = store.putIfVersion; const reads = { count: 0 }; \
           Object.defineProperty(store, 'putIfVersion', { get() { reads.count += 1; return reads.count === 1 ? put : () => { throw new Error('second read'); }; } }); \
           return reads; }",
    )
    .unchecked_into::<Function>()
    .call1(&JsValue::UNDEFINED, &store)
    .unwrap();
    let fold: Function = get(&stage, "fold").dyn_into().unwrap();
    let promise: Promise = fold
        .call2(&JsValue::UNDEFINED, &conversation(6, 2, 100, "c1"), &js(&json!({ "conversationId": "c1" })))
        .unwrap()
        .dyn_into()
        .unwrap();
    let result = JsFuture::from(promise).await.unwrap();
    assert_eq!(get(&reads, "count"), 1, "read once");
    let writes = parse(&h.json("conditionalWrites"));
    assert_eq!(writes.as_array().unwrap().len(), 2, "the claim and its give-up: {writes:#}");
    let evidence = first_payload(&result)["scoreEvidence"].clone();
    assert_eq!(evidence["claimGivenUp"], true, "{evidence}");
}

#[wasm_bindgen_test]
async fn an_identity_that_names_no_conversation_claims_nothing() {
    // Two conversations without a conversationId would claim one span id:
    // such a visit runs as without claims, and says nothing of claims.
    let f = claims_fixture("ok", json!({}));
    for identity in [json!({}), json!({ "tenant": "acme" })] {
        f.fold(&conversation(6, 2, 100, "c1"), &js(&identity)).await;
    }
    assert_eq!(f.field("conditionalWrites"), json!([]), "no claim written");
    assert_eq!(f.call_count(), 2, "each visit made its own call");
    let events = f.field("onEvents");
    assert_eq!(events.as_array().unwrap().len(), 2, "a fold event each");
    for event in events.as_array().unwrap() {
        let evidence = &event["payload"]["scoreEvidence"];
        assert!(evidence.get("claimId").is_none() && evidence.get("claimsUnsupported").is_none(), "{evidence}");
    }
}

#[wasm_bindgen_test]
async fn the_transcript_keeps_the_roles_as_the_visit_began_through_the_claims_await() {
    // With claims the call is made after the claim's await; a caller that
    // reuses its message objects meanwhile changes nothing the call is told.
    let f = claims_fixture("ok", json!({ "shape": "provider" }));
    let loaded = conversation(6, 2, 100, "c1");
    let stage: &Function = f.stage.unchecked_ref();
    let visit: Promise = stage.call1(&JsValue::UNDEFINED, &f.scope(&loaded)).unwrap().dyn_into().unwrap();
    for entry in loaded.iter() {
        Reflect::set(&get(&entry, "value"), &"role".into(), &"reused".into()).unwrap();
    }
    JsFuture::from(visit).await.expect("stage resolves");
    assert_eq!(f.field("conditionalWrites").as_array().unwrap().len(), 1, "claimed before the call");
    let transcript = f.field("calls")[0]["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(transcript.contains("user (turn 1): ") && !transcript.contains("reused"), "{transcript}");
}
