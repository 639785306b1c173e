//! What the run that makes a call came to, and what each outcome means
//! for the latch, the warning and the fleet's claim.

use super::*;

/// What the run that makes the call came to, as every run over its span
/// (the leader and any that joined it) settles from it. `Entry` is the new
/// summary entry, as the bindings hold it.
#[derive(Clone)]
pub enum CallOutcome<Entry> {
    /// Another process holds the fleet's claim on the span: no call was made.
    ClaimedElsewhere,
    /// The store failed to take the claim: no call was made.
    ClaimFailed {
        cause: String,
    },
    /// The span's entries could not be read again to make the call (to do
    /// what this says): none was made.
    Unreadable {
        what: &'static str,
    },
    Failed {
        cause: String,
        /// The call's size in UTF-16 units, when this run made it: what a
        /// user sets `maxSpanChars` by when the summarizer refused it for size.
        sent_chars: Option<usize>,
    },
    NotSmaller {
        summary_chars: usize,
        usage: Option<Usage>,
    },
    /// `countTokens` gave no count for the summary (what it gave): not used.
    SummaryUncounted {
        found: String,
    },
    Folded {
        entry: Entry,
        fold: Fold,
        write_back: WriteBack,
    },
}

impl<Entry> CallOutcome<Entry> {
    /// SPEC §4 step 9: whether the run's stage latches the span, so it is
    /// not asked for again: the same span gives the same answer, refused
    /// as not smaller, or one the counter cannot count.
    pub fn latches(&self) -> bool {
        matches!(self, CallOutcome::NotSmaller { .. } | CallOutcome::SummaryUncounted { .. })
    }

    /// SPEC §7: whether the stage's one warning may say this (a caller's
    /// function or entries broke; a failed summarizer or store has its own).
    pub fn warns(&self) -> bool {
        matches!(self, CallOutcome::Unreadable { .. } | CallOutcome::SummaryUncounted { .. })
    }

    /// Whether the fleet's claim a run holds is given up: nothing came of
    /// it for the fleet to load (the call failed or could not be made, the
    /// summary cannot be counted, or its write failed), so the next turn
    /// may claim the span again. A refusal keeps it: the same span gives
    /// the same answer, so the claim spares the fleet that call until its
    /// lease ends.
    pub fn gives_up_claim(&self) -> bool {
        matches!(
            self,
            CallOutcome::Failed { .. }
                | CallOutcome::Unreadable { .. }
                | CallOutcome::SummaryUncounted { .. }
                | CallOutcome::Folded { write_back: WriteBack::Failed(_), .. }
        )
    }

    /// Whether no call was made, so an event says nothing of claims.
    pub fn made_no_call(&self) -> bool {
        matches!(self, CallOutcome::ClaimedElsewhere | CallOutcome::ClaimFailed { .. } | CallOutcome::Unreadable { .. })
    }
}
