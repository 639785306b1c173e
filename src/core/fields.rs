//! An event's evidence object, written field by field in SPEC §4 key order
//! to a `FieldWriter`. The bindings pack the fields into numbers for
//! glue.js, which builds the plain object from them: cheaper than writing
//! JSON here and parsing it there (measured: about 120 ns against 340 ns for
//! a fold's evidence in Node 20).

/// Declares `Key` with `Key::ALL` and `Key::name` from one list, so the
/// three cannot drift apart.
macro_rules! evidence_keys {
    ($($key:ident => $name:literal,)*) => {
        /// Every key an evidence object uses.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub enum Key {
            $($key,)*
        }

        impl Key {
            /// Every key, each at its own `key as usize`.
            pub const ALL: [Key; [$(Key::$key,)*].len()] = [$(Key::$key,)*];

            /// The key as the payload spells it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Key::$key => $name,)*
                }
            }
        }
    };
}

evidence_keys! {
    SummarizerCalled => "summarizerCalled",
    SpanEntries => "spanEntries",
    SpanChars => "spanChars",
    Latched => "latched",
    LabelChars => "labelChars",
    Predicted => "predicted",
    Failed => "failed",
    SummaryChars => "summaryChars",
    Persisted => "persisted",
    Model => "model",
    Usage => "usage",
    Input => "input",
    Output => "output",
    Coalesced => "coalesced",
    InvalidIndex => "invalidIndex",
    InvalidField => "invalidField",
}

/// Receives an object's fields in order.
pub trait FieldWriter {
    fn bool(&mut self, key: Key, value: bool);
    /// A count is a JS number like any other.
    fn count(&mut self, key: Key, value: usize) {
        self.number(key, value as f64);
    }
    /// A JS number; a non-finite one stands for null, as JSON would write it.
    fn number(&mut self, key: Key, value: f64);
    fn text(&mut self, key: Key, value: &str);
    /// The fields up to the matching `close` belong to an object under `key`.
    fn open(&mut self, key: Key);
    fn close(&mut self);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_a_distinct_name() {
        for key in Key::ALL {
            assert_eq!(Key::ALL.iter().filter(|other| other.name() == key.name()).count(), 1, "{key:?}");
        }
    }
}
