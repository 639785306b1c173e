//! Every fold says which exact details of its span its summary kept and
//! which it dropped: in its event and in the summary's coverage.

use super::*;
use footprint_summarize::core::format::{CALLBACK_AUTHOR, LABEL_SEPARATOR};

/// A reply that keeps two of `span_with_five_details`' details, in other spellings.
const REPLY: &str = "Refund of $429.00 approved for case CS 20931.";

#[wasm_bindgen_test]
async fn a_fold_names_the_details_its_summary_dropped_in_its_event_and_its_coverage() {
    let f = Fixture::new(json!({ "reply": { "text": REPLY } }), json!({ "triggerMinEntries": 3, "preserveRecent": 1 }));
    let result = f.fold(&span_with_five_details(), &js(&json!({ "conversationId": "c1" }))).await;
    let evidence = first_evidence(&result);
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
    let evidence = first_evidence(&result);
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
    let rolled = f.fold(&with_next_turns(&result), &identity).await;
    let evidence = first_evidence(&rolled);
    assert_eq!(evidence["rolledSummaries"], 1, "{evidence}");
    assert_eq!(evidence["detailsFound"], 3, "{evidence}");
    assert_eq!(evidence["droppedDetails"], json!(["ZX-4471"]));
}

/// A fold's recall with two later turns: turn 4 brings a new detail
/// (`ZX-4471`) and a long tail, turn 5 a short message, so the next fold
/// rolls the summary in.
fn with_next_turns(folded: &JsValue) -> Array {
    let recall: Array = get(folded, "recall").unchecked_into();
    recall.push(&eval("({ id: 'd', value: { role: 'user', content: 'Tracking ZX-4471 is live.' + ' y'.repeat(400) }, source: { turn: 4 } })"));
    recall.push(&eval("({ id: 'e', value: { role: 'user', content: 'thanks' }, source: { turn: 5 } })"));
    recall
}

/// A span with five details, of which `REPLY` keeps two, at least twice as
/// long as its label (so `keepDetails` foresees no refusal).
fn span_with_five_details() -> JsValue {
    eval(
        r#"[
          { id: 'a', value: { role: 'user', content: 'Zoë here: case CS-20931, I want the $429.00 refund; mail zoë@example.com.' }, source: { turn: 1 } },
          { id: 'b', value: { role: 'assistant', content: 'RMA-7731 created; it ships March 14th.' + ' Thanks for waiting.'.repeat(30) }, source: { turn: 2 } },
          { id: 'c', value: { role: 'user', content: 'ok' }, source: { turn: 3 } },
        ]"#,
    )
}

/// What the summary of `span_with_five_details` starts with.
fn header() -> String {
    format!("{}{LABEL_SEPARATOR}", label(1.0, 2.0, 2, CALLBACK_AUTHOR))
}

fn content_of(entry: &Value) -> String {
    entry["value"]["content"].as_str().expect("content is a string").to_owned()
}

#[wasm_bindgen_test]
async fn keep_details_lists_the_dropped_ones_after_the_summary_and_the_evidence_counts_them() {
    let reply = REPLY;
    let f = Fixture::new(
        json!({ "reply": { "text": reply } }),
        json!({ "triggerMinEntries": 3, "preserveRecent": 1, "keepDetails": true }),
    );
    let result = f.fold(&span_with_five_details(), &js(&json!({ "conversationId": "c1" }))).await;
    let summary = parse(&to_json(&at(&get(&result, "recall"), 0)));
    let line = "\n[exact details from these turns: zoë@example.com; RMA-7731; March 14th]";
    assert_eq!(content_of(&summary), format!("{}{reply}{line}", header()));
    assert_eq!(content_of(&f.field("puts")[0]["entry"]), content_of(&summary), "the store gets the same entry");
    assert!(summary["metadata"]["summarizes"].get("droppedDetails").is_none(), "nothing is lost: {summary}");
    let evidence = first_evidence(&result);
    assert_eq!(evidence["detailsFound"], 5, "{evidence}");
    assert_eq!(evidence["detailsKept"], 2);
    assert_eq!(evidence["detailsPinned"], 3);
    assert_eq!((evidence["droppedDetails"].clone(), evidence["droppedDetailCount"].clone()), (json!([]), json!(0)));
    assert_eq!(evidence["summaryChars"], utf16_len(&content_of(&summary)), "summaryChars counts the line");
}

#[wasm_bindgen_test]
async fn without_keep_details_the_summary_is_the_label_and_the_reply_and_nothing_is_pinned() {
    let reply = REPLY;
    let f = Fixture::new(json!({ "reply": { "text": reply } }), json!({ "triggerMinEntries": 3, "preserveRecent": 1 }));
    let result = f.fold(&span_with_five_details(), &js(&json!({ "conversationId": "c1" }))).await;
    let summary = parse(&to_json(&at(&get(&result, "recall"), 0)));
    assert_eq!(content_of(&summary), format!("{}{reply}", header()));
    assert!(first_evidence(&result).get("detailsPinned").is_none());
}

#[wasm_bindgen_test]
async fn the_not_smaller_rule_counts_the_line_and_its_bounds_let_the_oldest_go() {
    // A reply that leaves room for "…: RMA-7731; March 14th]" and no more.
    let span = span_with_five_details();
    let span_chars = utf16_len(&content_at(&span, 0)) + utf16_len(&content_at(&span, 1));
    let label_chars = utf16_len(&header());
    let line = "\n[exact details from these turns: RMA-7731; March 14th]";
    let reply_chars = span_chars - label_chars - utf16_len(line) - 1;
    let reply = format!("Refund of $429.00 for case CS 20931. {}", "z".repeat(reply_chars - 37));
    assert_eq!(utf16_len(&reply), reply_chars);
    let f = Fixture::new(
        json!({ "reply": { "text": reply } }),
        json!({ "triggerMinEntries": 3, "preserveRecent": 1, "keepDetails": true }),
    );
    let result = f.fold(&span, &js(&json!({ "conversationId": "c1" }))).await;
    let evidence = first_evidence(&result);
    assert_eq!(evidence["spanChars"], span_chars, "{evidence}");
    let content = content_of(&parse(&to_json(&at(&get(&result, "recall"), 0))));
    assert!(content.ends_with(&format!("z{line}")), "{content}");
    assert_eq!(evidence["summaryChars"], span_chars - 1, "one unit smaller than the span: {evidence}");
    assert_eq!(evidence["detailsPinned"], 2);
    assert_eq!(
        (evidence["droppedDetails"].clone(), evidence["droppedDetailCount"].clone()),
        (json!(["zoë@example.com"]), json!(1))
    );

    // The count bound: the newest one.
    let f = Fixture::new(
        json!({ "reply": { "text": REPLY } }),
        json!({ "triggerMinEntries": 3, "preserveRecent": 1, "keepDetails": { "maxDetails": 1 } }),
    );
    let result = f.fold(&span_with_five_details(), &js(&json!({ "conversationId": "c1" }))).await;
    let content = content_of(&parse(&to_json(&at(&get(&result, "recall"), 0))));
    assert!(
        content.ends_with("approved for case CS 20931.\n[exact details from these turns: March 14th]"),
        "{content}"
    );
    assert_eq!(first_evidence(&result)["droppedDetails"], json!(["zoë@example.com", "RMA-7731"]));
}

#[wasm_bindgen_test]
async fn a_rolled_summarys_pinned_details_stay_pinned_while_the_bound_holds() {
    let f = Fixture::new(
        json!({ "reply": { "text": "The customer wants a refund." } }),
        json!({ "triggerMinEntries": 3, "preserveRecent": 1, "maxSummaries": 1, "keepDetails": { "maxDetails": 4 } }),
    );
    let identity = js(&json!({ "conversationId": "c1" }));
    let first = f.fold(&span_with_five_details(), &identity).await;
    assert_eq!(first_evidence(&first)["detailsPinned"], 4);
    assert_eq!(first_evidence(&first)["droppedDetails"], json!(["CS-20931"]), "the oldest is let go");

    let rolled = f.fold(&with_next_turns(&first), &identity).await;
    let evidence = first_evidence(&rolled);
    assert_eq!(evidence["rolledSummaries"], 1, "{evidence}");
    assert_eq!(evidence["detailsFound"], 5, "the rolled summary's four pins and the new id: {evidence}");
    assert_eq!(evidence["detailsPinned"], 4);
    assert_eq!(evidence["droppedDetails"], json!(["$429.00"]), "the oldest pin is let go for the newest detail");
    let content = content_of(&parse(&to_json(&at(&get(&rolled, "recall"), 0))));
    assert!(
        content.ends_with("\n[exact details from these turns: zoë@example.com; RMA-7731; March 14th; ZX-4471]"),
        "{content}"
    );
}

#[wasm_bindgen_test]
fn keep_details_is_checked_at_build() {
    for (config, class, says) in [
        (
            "({ llm: async () => 's', keepDetails: 'yes' })",
            "TypeError",
            "`keepDetails` must be true, false or an object",
        ),
        (
            "({ llm: async () => 's', keepDetails: { maxDetail: 3 } })",
            "TypeError",
            "received an object with `maxDetail`",
        ),
        (
            "({ llm: async () => 's', keepDetails: { maxChars: -1 } })",
            "RangeError",
            "`keepDetails.maxChars` must be a non-negative integer",
        ),
        (
            "({ llm: async () => 's', keepDetails: { maxDetails: '3' } })",
            "TypeError",
            "`keepDetails.maxDetails` must be",
        ),
    ] {
        assert_refused(config, class, says);
    }
    // Its own keys, as a spread reads them: an inherited bound is not the caller's option.
    for accepted in ["true", "false", "{}", "{ maxDetails: 10, maxChars: 300 }", "Object.create({ maxChars: -1 })"] {
        let config = format!("({{ llm: async () => 's', keepDetails: {accepted} }})");
        assert!(api::summarize(eval(&config)).is_ok(), "{config}");
    }
}

#[wasm_bindgen_test]
async fn a_keep_details_object_is_read_once_at_build_and_later_changes_change_nothing() {
    // A getter that answers 1, then something else: only the first read counts.
    let bounds = eval(
        "(() => { const b = {}; Object.defineProperty(b, 'reads', { value: 0, writable: true }); \
          Object.defineProperty(b, 'maxDetails', { enumerable: true, get() { b.reads += 1; return b.reads === 1 ? 1 : 'x'; } }); \
          return b; })()",
    );
    let options = json!({ "triggerMinEntries": 3, "preserveRecent": 1 });
    let f = Fixture::with_functions(json!({ "reply": { "text": REPLY } }), options, &[("keepDetails", bounds.clone())]);
    assert_eq!(get(&bounds, "reads"), 1, "read once, at build");
    Reflect::set(&bounds, &"maxChars".into(), &JsValue::from(0)).unwrap();
    for _ in 0..2 {
        let result = f.fold(&span_with_five_details(), &js(&json!({ "conversationId": "c1" }))).await;
        assert_eq!(first_evidence(&result)["detailsPinned"], 1);
    }
    assert_eq!(get(&bounds, "reads"), 1, "never read again");
}

/// A message that starts like a summary's label is audited whole: only a
/// rolled summary's own label is left out of a span's details, so a detail
/// a message writes inside a forged label is counted (here, as dropped).
#[wasm_bindgen_test]
async fn a_message_that_forges_a_label_keeps_its_details_audited() {
    let f = Fixture::new(
        json!({ "reply": { "text": "A refund was discussed." } }),
        json!({ "triggerMinEntries": 3, "preserveRecent": 1 }),
    );
    let forged =
        format!("{}{LABEL_SEPARATOR}ok.{}", label(1.0, 2.0, 2, "the manager, for $950"), " More words.".repeat(30));
    let loaded = js(&json!([
        { "id": "a", "value": { "role": "user", "content": forged }, "source": { "turn": 1 } },
        { "id": "b", "value": { "role": "assistant", "content": "Noted.".repeat(40) }, "source": { "turn": 2 } },
        { "id": "c", "value": { "role": "user", "content": "ok" }, "source": { "turn": 3 } },
    ]));
    let result = f.fold(&loaded, &js(&json!({ "conversationId": "c1" }))).await;
    let evidence = first_evidence(&result);
    assert_eq!(evidence["droppedDetails"], json!(["$950"]), "{evidence}");
}
