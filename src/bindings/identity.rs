//! A visit's identity, read once (SPEC §8, Isolation): a shallow plain copy,
//! `{ ...identity }` (with the parts naming its conversation even where a
//! class defines them as getters), taken before the visit awaits anything, so a caller
//! that reuses or changes its identity object (a pooled request context)
//! changes nothing for this visit. The copy goes to every store call the
//! visit makes; its parts decide whether the visit may share a call, an
//! outcome or a latch entry with another (`core::identity`).

use js_sys::{JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js;
use super::recall::matching_key;
use crate::core::events::InvalidSpot;
use crate::core::identity::{Part, Parts};
use crate::core::latch::KeyText;

pub struct VisitIdentity {
    /// What the store calls receive: the copy, or a primitive as given.
    pub copy: JsValue,
    /// Present only when the identity names one conversation.
    pub key: Option<KeyText>,
}

/// Reads `identity` once; an identity that throws while it is read is the
/// visit's bad input.
pub fn read(identity: Result<JsValue, JsValue>) -> Result<VisitIdentity, InvalidSpot> {
    let identity = identity.map_err(|error| unreadable(&error))?;
    if !identity.is_object() {
        // A primitive is plain data already, and names no conversation.
        return Ok(VisitIdentity { copy: identity, key: None });
    }
    // A class may define the parts as getters on its prototype: they are
    // read once into the copy too, so the key and every store call see them.
    let copy = js::plain_copy_with(&identity, &PART_NAMES).map_err(|error| unreadable(&error))?;
    // The copy holds plain data properties: reading them cannot throw.
    let [tenant, principal, conversation_id] =
        PART_NAMES.map(|name| part(Reflect::get(&copy, &JsValue::from_str(name))));
    let parts = Parts { tenant, principal, conversation_id };
    Ok(VisitIdentity { key: parts.key(), copy: copy.into() })
}

/// The parts of an identity that name its conversation (`Parts`), in order.
const PART_NAMES: [&str; 3] = ["tenant", "principal", "conversationId"];

fn unreadable(error: &JsValue) -> InvalidSpot {
    InvalidSpot::identity_unreadable(&js::cause_of(error))
}

fn part(read: Result<JsValue, JsValue>) -> Part {
    let Ok(value) = read else { return Part::Other };
    if value.is_undefined() || value.is_null() {
        Part::Absent
    } else if let Some(text) = value.dyn_ref::<JsString>() {
        Part::Text(matching_key(text))
    } else {
        value.as_f64().filter(|n| n.is_finite()).map_or(Part::Other, Part::Number)
    }
}
