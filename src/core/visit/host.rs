//! What a visit needs of its platform (the bindings, or a test's host).

use super::*;

/// What a visit needs of its platform: what step 1 read, the stage's state
/// between visits, the caller's functions, and where the result goes. A
/// call is started by one method and awaited by another, so the visit
/// decides what runs before the stage returns.
pub trait Host: Sized + 'static {
    /// A recall entry, and the new summary entry.
    type Entry: Clone + 'static;
    /// The summary's text as the summarizer gave it.
    type Text: 'static;
    /// A call into the caller's summarizer or store, started and not yet awaited.
    type Call: 'static;
    /// The store's conditional write (`putIfVersion`).
    type Writer: Clone + 'static;
    type Delivered: 'static;

    fn config(&self) -> &StageConfig;
    /// How many entries `loaded` held, even when reading stopped at a bad one.
    fn loaded_len(&self) -> usize;
    fn facts(&self) -> &[EntryFacts];
    /// Entry `index`'s id as text, for keys.
    fn id_text(&self, index: usize) -> &str;
    /// Counts every entry's content into its facts' tokens; the first
    /// entry the counter gives no count for is the visit's invalid input.
    fn count_tokens(&mut self) -> Result<(), InvalidSpot>;
    /// Copies what the call and the entries it writes take of the span's
    /// entries (the first one's `source.identity`, SPEC §2; each role for a
    /// provider's transcript, §5), once the span is known and before anything
    /// is awaited: the caller may change or reuse its objects meanwhile.
    fn keep_span(&mut self, span: &[usize]);

    /// Whether this stage latched the span with this key (SPEC §4 step 9).
    fn latched(&self, key: &str) -> bool;
    fn latch(&self, key: &str);
    /// Tells this stage's latch and flights apart from every other stage's.
    fn stage_id(&self) -> f64;
    /// The module's flights, every stage's, where the host keeps them.
    fn with_flights<R>(&self, use_them: impl FnOnce(&Flights<CallOutcome<Self::Entry>>) -> R) -> R;
    /// The flight of this stage over exactly this span a run may join now.
    fn find_flight(&self, key: &str) -> Option<Rc<Flight<Self::Entry>>> {
        let (stage_id, window_ms, now) = (self.stage_id(), self.config().join_window_ms(), self.wall_clock());
        self.with_flights(|flights| flights.find(stage_id, key, window_ms, now))
    }
    fn start_flight(&self, key: String) -> Rc<Flight<Self::Entry>> {
        let (stage_id, now) = (self.stage_id(), self.wall_clock());
        self.with_flights(|flights| flights.start(stage_id, key, now))
    }
    /// Ends the flight: later runs over the span start their own.
    fn finish_flight(&self, flight: &Rc<Flight<Self::Entry>>) {
        self.with_flights(|flights| flights.finish(flight));
    }
    /// The leader's outcome once it is published; None past the join window.
    fn published(&self, flight: &Flight<Self::Entry>) -> impl Future<Output = Option<CallOutcome<Self::Entry>>>;
    /// SPEC §7: at most one console.warn per stage.
    fn warn_once(&self, message: impl FnOnce() -> String);
    /// True the first time it is asked for this stage: once per stage, an
    /// event says that the store cannot take claims.
    fn first_claims_note(&self) -> bool;

    /// The configured `now`'s reading (None without one).
    fn configured_clock(&self) -> Option<Result<f64, String>>;
    /// `Date.now()`.
    fn wall_clock(&self) -> f64;
    /// `Math.random()`.
    fn random(&self) -> f64;

    /// Starts the summarizer call on `span`; or what could not be done with
    /// the span's entries (no call was made).
    fn start_summarizer(&self, span: &[usize]) -> Result<Self::Call, &'static str>;
    fn summary(&self, call: Self::Call) -> impl Future<Output = Result<Answer<Self::Text>, String>>;
    /// `store.putIfVersion`: None when the store has none (it takes no claims).
    fn claim_writer(&self) -> Result<Option<Self::Writer>, String>;
    /// Starts writing `claim`'s entry on `candidate`'s span, its lease
    /// ending at `ttl`, over the store's version `expected_version`.
    fn start_claim_write(
        &self,
        candidate: &Candidate,
        claim: &HeldClaim<Self::Writer>,
        ttl: f64,
        expected_version: f64,
    ) -> Self::Call;
    fn claim_written(&self, call: Self::Call) -> impl Future<Output = Result<ConditionalWrite, String>>;
    /// Lets a started call run to its end unawaited.
    fn detach(&self, call: Self::Call);

    /// The span's contents as text (empty when absent).
    fn span_texts(&self, span: &[usize]) -> Vec<String>;
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
    fn has_store(&self) -> bool;
    /// `store.put(identity, entry)`.
    fn put(&self, entry: &Self::Entry) -> impl Future<Output = Result<(), String>>;

    /// SPEC §4 step 3 and the event: the recall and the event, delivered.
    fn deliver(&self, outcome: Outcome<Self::Entry>) -> Self::Delivered;
}
