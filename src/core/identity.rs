//! Which visits may share a summarizer call, an outcome or a latch entry
//! (SPEC §8, Isolation): only visits provably of the same conversation, the
//! same `tenant`, `principal` and `conversationId`, with `conversationId`
//! present. A stage is shared by every conversation a server handles, so
//! any other identity (absent, `{}`, unknown fields, a `sessionId`) shares
//! nothing with any other visit.

use super::js_number::js_number_to_string;
use super::latch::KeyText;

/// One part of an identity, as read once from the visit's copy of it.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Undefined or null.
    Absent,
    /// A string, as the bindings write it losslessly (`matching_key`).
    Text(String),
    /// A finite number.
    Number(f64),
    /// Anything else (an object, a symbol, a boolean, a bigint, NaN): no
    /// part of a key.
    Other,
}

/// `{ tenant, principal, conversationId }` of a visit.
#[derive(Clone, Debug, PartialEq)]
pub struct Parts {
    pub tenant: Part,
    pub principal: Part,
    pub conversation_id: Part,
}

impl Parts {
    /// Every identity that is not an object with these three fields.
    pub const NONE: Parts = Parts { tenant: Part::Absent, principal: Part::Absent, conversation_id: Part::Absent };

    /// The key text two visits must share to share anything: None unless
    /// `conversationId` is a string or a finite number and the other two
    /// parts are absent, strings or finite numbers. Each part is written
    /// (`KeyText`) as its type and its text, so parts cannot run together
    /// and `7` is not `'7'`.
    pub fn key(&self) -> Option<KeyText> {
        if !matches!(self.conversation_id, Part::Text(_) | Part::Number(_)) {
            return None;
        }
        let mut key = KeyText::default();
        for part in [&self.tenant, &self.principal, &self.conversation_id] {
            key = match part {
                Part::Absent => key.part("-"),
                Part::Text(text) => key.part(&format!("s{text}")),
                Part::Number(number) => key.part(&format!("n{}", js_number_to_string(*number))),
                Part::Other => return None,
            };
        }
        Some(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(tenant: Part, principal: Part, conversation_id: Part) -> Parts {
        Parts { tenant, principal, conversation_id }
    }

    fn text(t: &str) -> Part {
        Part::Text(t.to_owned())
    }

    #[test]
    fn only_a_present_conversation_id_makes_a_key() {
        assert_eq!(Parts::NONE.key(), None, "no identity, {{}} or unknown fields");
        assert_eq!(parts(text("t"), text("p"), Part::Absent).key(), None);
        assert_eq!(parts(Part::Absent, Part::Absent, Part::Other).key(), None, "a bigint, symbol or object id");
        assert_eq!(parts(Part::Other, Part::Absent, text("c")).key(), None, "an object tenant");
        assert!(parts(Part::Absent, Part::Absent, text("c")).key().is_some());
        assert!(parts(Part::Absent, Part::Absent, Part::Number(7.0)).key().is_some());
    }

    #[test]
    fn parts_never_run_together_and_types_stay_apart() {
        let key = |t: &str, p: &str| parts(text(t), text(p), text("c")).key();
        assert_ne!(key("a", "bc"), key("ab", "c"));
        assert_ne!(
            parts(Part::Number(7.0), Part::Absent, text("c")).key(),
            parts(text("7"), Part::Absent, text("c")).key()
        );
        assert_eq!(
            parts(Part::Absent, Part::Absent, Part::Number(-0.0)).key(),
            parts(Part::Absent, Part::Absent, Part::Number(0.0)).key()
        );
        assert_ne!(parts(Part::Absent, Part::Absent, text("c")).key(), parts(text(""), Part::Absent, text("c")).key());
    }
}
