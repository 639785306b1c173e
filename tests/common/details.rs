//! Every fold says which exact details of its span its summary kept and
//! which it dropped (issue #27): in its event and in the summary's coverage.

use super::*;

fn evidence_of(result: &JsValue) -> Value {
    parse(&to_json(&get(&at(&get(result, "events"), 0), "payload")))["scoreEvidence"].clone()
}

#[wasm_bindgen_test]
async fn a_fold_names_the_details_its_summary_dropped_in_its_event_and_its_coverage() {
    let f = Fixture::new(
        json!({ "reply": { "text": "Refund of $429.00 approved for case CS 20931." } }),
        json!({ "triggerMinEntries": 3, "preserveRecent": 1 }),
    );
    let loaded = eval(
        r#"[
          { id: 'a', value: { role: 'user', content: 'Zoë here: case CS-20931, I want the $429.00 refund; mail zoë@example.com.' }, source: { turn: 1 } },
          { id: 'b', value: { role: 'assistant', content: 'RMA-7731 created; it ships March 14th.' + ' Thanks for waiting.'.repeat(20) }, source: { turn: 2 } },
          { id: 'c', value: { role: 'user', content: 'ok' }, source: { turn: 3 } },
        ]"#,
    );
    let result = f.fold(&loaded, &js(&json!({ "conversationId": "c1" }))).await;
    let evidence = evidence_of(&result);
    let dropped = json!(["zoë@example.com", "RMA-7731", "March 14th"]);
    assert_eq!(evidence["detailsFound"], 5, "{evidence}");
    assert_eq!(evidence["detailsKept"], 2, "$429.00 and CS-20931, in other spellings: {evidence}");
    assert_eq!(evidence["droppedDetails"], dropped);
    assert_eq!(evidence["droppedDetailCount"], 3);
    let summary = parse(&to_json(&at(&get(&result, "recall"), 0)));
    assert_eq!(summary["metadata"]["summarizes"]["droppedDetails"], dropped, "the store keeps the evidence too");
    assert_eq!(f.field("puts")[0]["entry"]["metadata"]["summarizes"]["droppedDetails"], dropped);
}

#[wasm_bindgen_test]
async fn a_summary_that_keeps_every_detail_records_none_and_a_rolled_summarys_details_count() {
    let f = Fixture::new(
        json!({ "reply": { "text": "Order #4411 costs $42.50." } }),
        json!({ "triggerMinEntries": 3, "preserveRecent": 1, "maxSummaries": 1 }),
    );
    let identity = js(&json!({ "conversationId": "c1" }));
    let first = eval(
        "[{ id: 'a', value: { role: 'user', content: 'Order #4411 costs $42.50, please.' + ' More words here.'.repeat(30) }, source: { turn: 1 } },
          { id: 'b', value: { role: 'user', content: 'x'.repeat(300) }, source: { turn: 2 } },
          { id: 'c', value: { role: 'user', content: 'ok' }, source: { turn: 3 } }]",
    );
    let result = f.fold(&first, &identity).await;
    let evidence = evidence_of(&result);
    assert_eq!((evidence["detailsFound"].clone(), evidence["detailsKept"].clone()), (json!(2), json!(2)), "{evidence}");
    assert_eq!(evidence["droppedDetails"], json!([]));
    let summary = parse(&to_json(&at(&get(&result, "recall"), 0)));
    assert!(
        summary["metadata"]["summarizes"].get("droppedDetails").is_none(),
        "nothing dropped, nothing added: {summary}"
    );

    // The next fold rolls that summary in: its details are the span's too,
    // and this summary ("Order #4411 costs $42.50.") keeps them; the new
    // message's tracking id is dropped.
    let recall: Array = get(&result, "recall").unchecked_into();
    recall.push(&eval("({ id: 'd', value: { role: 'user', content: 'Tracking ZX-4471 is live.' + ' y'.repeat(400) }, source: { turn: 4 } })"));
    recall.push(&eval("({ id: 'e', value: { role: 'user', content: 'thanks' }, source: { turn: 5 } })"));
    let rolled = f.fold(&recall, &identity).await;
    let evidence = evidence_of(&rolled);
    assert_eq!(evidence["rolledSummaries"], 1, "{evidence}");
    assert_eq!(evidence["detailsFound"], 3, "{evidence}");
    assert_eq!(evidence["droppedDetails"], json!(["ZX-4471"]));
}
