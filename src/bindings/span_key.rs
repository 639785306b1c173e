//! A span's key (identity + every id in the span, hashed by the core), read
//! from JS only when something could match it: reading it touches every id,
//! so a visit with no latched span of its length and no flight of its length
//! goes without. The identity's part is taken when the visit considers the
//! fold; the ids are the ones the reader validated.

use std::rc::Rc;

use wasm_bindgen::JsValue;

use super::glue::{self, RecallRead};
use crate::core::latch::SpanKey;

/// What a span's key is read from.
#[derive(Clone)]
pub struct SpanSource {
    pub read: RecallRead,
    /// `identityKey(identity)` as it was when the visit considered the fold:
    /// its text, or undefined when the identity has no key.
    pub identity_key: JsValue,
    /// The span's indices into the snapshot.
    pub span: Rc<[u32]>,
}

impl SpanSource {
    /// False for an identity with no text of its own: no later visit can be
    /// known to be the same conversation, so the span has no key, joins no
    /// flight and is never latched.
    pub fn is_keyed(&self) -> bool {
        !self.identity_key.is_undefined()
    }

    /// Only for a keyed span.
    pub fn key(&self) -> SpanKey {
        let units = glue::read_span_key(&self.read, &self.identity_key, &self.span) as usize;
        // The text is encoded straight into this buffer. One byte per UTF-16
        // unit fits ASCII ids exactly; anything else is encoded again into
        // the worst case, three per unit.
        let mut lengths = vec![0u32; self.span.len() + 1];
        let mut bytes = vec![0u8; units];
        let mut written = glue::encode_span_key(&self.read, &mut bytes, &mut lengths);
        if written < 0 {
            bytes = vec![0u8; 3 * units];
            written = glue::encode_span_key(&self.read, &mut bytes, &mut lengths);
        }
        let written = usize::try_from(written).unwrap_or(0);
        SpanKey::new(bytes.get(..written).unwrap_or_default(), &lengths)
    }
}
