//! What the module keeps between visits, for every stage: the flights in
//! the air and each stage's latch. The visit drives both (`visit.rs`); a
//! host only says where this memory is, draws its seed, and frees a stage's
//! latch once the stage is gone.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use super::decision::CallOutcome;
use super::flight::{Flight, Flights};
use super::latch::{Latches, SpanKey};

/// Every stage's flights and latches.
pub struct Memory<Entry> {
    flights: Flights<CallOutcome<Entry>>,
    latches: RefCell<Latches>,
    /// The latch's hash seed, drawn on first use (`latch.rs` says why it is secret).
    seed: OnceCell<[u64; 2]>,
    draw_seed: fn() -> [u64; 2],
}

impl<Entry: Clone> Memory<Entry> {
    /// Memory whose latch seed `draw_seed` draws, the first time a stage
    /// that latched something is asked about a span: a first fold never
    /// pays for the draw (a host's random source may be slow to load).
    pub fn new(draw_seed: fn() -> [u64; 2]) -> Memory<Entry> {
        Memory { flights: Flights::default(), latches: RefCell::default(), seed: OnceCell::new(), draw_seed }
    }

    pub fn flights(&self) -> &Flights<CallOutcome<Entry>> {
        &self.flights
    }

    /// Whether the stage latched the span with this full key (SPEC §4 step 9).
    pub fn is_latched(&self, stage_id: f64, key_text: &str) -> bool {
        self.latches.borrow().contains(stage_id as u64, || self.key_of(key_text))
    }

    /// Latches the span; true when this made the stage's latch, which the
    /// host then frees with the stage ([`Memory::forget`]).
    pub fn latch(&self, stage_id: f64, key_text: &str) -> bool {
        let key = self.key_of(key_text);
        self.latches.borrow_mut().insert(stage_id as u64, key)
    }

    /// Frees a stage's latch once the stage is gone.
    pub fn forget(&self, stage_id: f64) {
        self.latches.borrow_mut().forget(stage_id as u64);
    }

    /// Publishes a leader's outcome, so runs waiting on it go on, and frees
    /// the flight's key for later runs; a span the outcome latches (the
    /// flight's span, whatever key it is found by) is latched first. True
    /// when this made the stage's latch. An outcome published already (a
    /// fold's, before its write) stands: runs woken by it read it.
    pub fn end(&self, flight: &Rc<Flight<CallOutcome<Entry>>>, outcome: &CallOutcome<Entry>) -> bool {
        let made_latch = outcome.latches() && self.latch(flight.stage_id(), flight.span());
        if flight.published().is_none() {
            flight.publish(outcome.clone());
        }
        self.flights.finish(flight);
        made_latch
    }

    fn key_of(&self, text: &str) -> SpanKey {
        SpanKey::of(text, *self.seed.get_or_init(self.draw_seed))
    }
}
