//! A stable text for a visit's identity, keying its single flight and its
//! latch (SPEC §8): same conversation, same text. Read when the visit
//! considers a fold, so changing the identity object later changes nothing
//! for that visit.

use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js::{self, Identity};
use super::recall::id_text;

/// Each form starts differently (`#` or a type name), so two forms never
/// share a text. None for an identity that cannot be told apart by its text
/// (a symbol, a part that throws or has no text): its visit joins no call
/// and latches nothing.
pub fn identity_text(identity: &JsValue) -> Option<String> {
    if identity.is_undefined() {
        return Some("undefined".into());
    }
    if identity.is_null() {
        return Some("null".into());
    }
    if let Some(text) = identity.dyn_ref::<JsString>() {
        return Some(format!("string:{}", id_text(text)));
    }
    if identity.is_object() {
        let identity: &Identity = identity.unchecked_ref();
        let mut text = String::from("#");
        for part in [identity.tenant(), identity.principal(), identity.conversation_id()] {
            text.push_str(&part_text(&part.ok()?)?);
        }
        return Some(text);
    }
    scalar_text(identity)
}

/// `number:7`, `boolean:true`, `bigint:7`; None for a symbol or a function.
fn scalar_text(value: &JsValue) -> Option<String> {
    let kind = value.js_typeof().as_string()?;
    matches!(kind.as_str(), "number" | "boolean" | "bigint")
        .then(|| js::js_string(value).ok().map(|text| format!("{kind}:{}", String::from(text))))
        .flatten()
}

/// One part of an object identity: its type, then its text's length and the
/// text, so parts cannot run together and `7` is not `'7'`. Null counts as
/// absent. None for a part with no text of its own. (JSON of the three parts
/// would not do: it writes a function or symbol part as `null`, the same as
/// an absent one, and throws for a bigint.)
fn part_text(part: &JsValue) -> Option<String> {
    if part.is_undefined() || part.is_null() {
        return Some("-".into());
    }
    if let Some(text) = part.dyn_ref::<JsString>() {
        let text = id_text(text);
        return Some(format!("s{}:{text}", text.len()));
    }
    if part.is_object() {
        let json = js_sys::JSON::stringify(part).ok()?.as_string()?;
        return Some(format!("o{}:{json}", json.len()));
    }
    let text = scalar_text(part)?;
    Some(format!("{}:{text}", text.len()))
}
