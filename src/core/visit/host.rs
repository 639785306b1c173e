//! What a visit needs of its platform (the bindings, or a test's host).

use super::*;

/// What a visit settled to, as the host delivers it: recall as slots, the
/// event, and the new summary.
pub struct Outcome<Entry> {
    pub settled: Settled,
    pub new_summary: Option<Entry>,
    /// Invalid input: recall is left exactly as given.
    pub untouched: bool,
    pub audience: Audience,
}

/// Who an outcome is delivered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    /// The visit's caller: recall and the event. A visit delivers to it
    /// once; a background fold that goes on keeps nothing of the caller's.
    Visit,
    /// The visit's caller, while its fold goes on in the background: the
    /// host keeps only what the fold reads.
    VisitWhileFolding,
    /// `onEvent` alone: a background fold's own end, after its visit returned.
    Observers,
}

impl<Entry: Clone> Outcome<Entry> {
    pub(super) fn of(settled: Settled) -> Outcome<Entry> {
        Outcome { settled, new_summary: None, untouched: false, audience: Audience::Visit }
    }

    /// Recall's entries in order: each loaded one as `loaded` gives it by
    /// its index, and the new summary in its slot.
    pub fn recall<'a>(&'a self, loaded: impl Fn(usize) -> Entry + 'a) -> impl Iterator<Item = Entry> + 'a {
        self.settled.recall.iter().filter_map(move |slot| match *slot {
            Slot::Loaded(index) => Some(loaded(index as usize)),
            Slot::NewSummary => self.new_summary.clone(),
        })
    }
}

/// A call into the caller's code, started and not yet awaited.
pub type Pending<T> = Pin<Box<dyn Future<Output = T>>>;

/// What a visit needs of its platform, in five roles: reading the span's
/// entries again, measuring a call ([`Sizer`], for a span bound), the
/// clock, calls into the caller's summarizer and store, and output. What step 1 read arrives as [`Loaded`] and the stage as
/// [`Stage`]; the visit drives the stage's flights and latch itself. A
/// call is started by one method and awaited as its [`Pending`], so the
/// visit decides what runs before the stage returns.
pub trait Host: Sized + Sizer + 'static {
    /// A recall entry, and the new summary entry.
    type Entry: Clone + 'static;
    /// The summary's text as the summarizer gave it.
    type Text: 'static;
    /// The store's conditional write (`putIfVersion`).
    type Writer: Clone + 'static;
    type Delivered: 'static;

    // Reading.
    /// Copies what the call and the entries it writes take of the span's
    /// entries (the first one's `source.identity`, SPEC §2; each role for a
    /// provider's transcript, §5), once the span is known and before anything
    /// is awaited: the caller may change or reuse its objects meanwhile.
    /// `cut_texts`: the messages a span bound sends cut, by entry index.
    fn keep_span(&mut self, span: &Rc<[usize]>, facts: &[EntryFacts], cut_texts: Vec<(usize, String)>);
    /// The span's contents as text (empty when absent).
    fn span_texts(&self, span: &[usize]) -> Vec<String>;

    // Clock.
    /// The configured `now`'s reading (None without one).
    fn configured_clock(&self) -> Option<Result<f64, String>>;
    /// `Date.now()`.
    fn wall_clock(&self) -> f64;
    /// `Math.random()`.
    fn random(&self) -> f64;
    /// Ends after `ms`; dropped before then, it stops its timer.
    fn timer(&self, ms: f64) -> impl Future<Output = ()> + 'static;

    // Calls.
    /// Starts the summarizer call on `span` (its cut messages as the
    /// [`Sizer`] cut them); or what could not be done with the span's
    /// entries (no call was made).
    fn summarize(&self, span: &[usize]) -> Result<Called<Self::Text>, &'static str>;
    /// `store.putIfVersion`: None when the store has none (it takes no claims).
    fn claim_writer(&self) -> Result<Option<Self::Writer>, String>;
    /// Starts writing `claim`'s entry on `candidate`'s span, its lease
    /// ending at `ttl`, over the store's version `expected_version`.
    fn write_claim(
        &self,
        candidate: &Candidate,
        claim: &HeldClaim<Self::Writer>,
        ttl: f64,
        expected_version: f64,
    ) -> Pending<Result<ConditionalWrite, String>>;
    /// `store.put(identity, entry)`, called when the future is first
    /// polled; None without a store.
    fn put(&self, entry: &Self::Entry) -> Option<impl Future<Output = Result<(), String>>>;
    /// Lets a started call run to its end unawaited.
    fn detach(&self, call: Pending<Result<ConditionalWrite, String>>);

    // Output.
    /// `label + text + pinned`, keeping the summarizer's text as it is.
    fn summary_content(&self, label: &str, text: Self::Text, pinned: &str) -> Self::Text;
    fn count_summary_tokens(&self, content: &Self::Text) -> Result<f64, String>;
    /// The summary entry (SPEC §2); its coverage names the claim it was paid under.
    fn summary_entry(
        &self,
        candidate: &Candidate,
        span: &[usize],
        content: Self::Text,
        now: f64,
        claim_id: Option<&str>,
        audit: &Audit,
    ) -> Self::Entry;
    /// SPEC §4 step 3 and the event: the recall and the event, delivered.
    fn deliver(&mut self, outcome: Outcome<Self::Entry>) -> Self::Delivered;
    /// SPEC §7: at most one console.warn per stage.
    fn warn_once(&self, message: impl FnOnce() -> String);
    /// True the first time it is asked for this stage: once per stage, an
    /// event says that the store cannot take claims.
    fn first_claims_note(&self) -> bool;
    /// The stage holds a latch from now on: free it
    /// ([`Memory::forget`](crate::core::memory::Memory::forget)) once the
    /// stage is gone.
    fn free_latch_with_stage(&self);
}
