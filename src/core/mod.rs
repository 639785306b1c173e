//! The pure-Rust core: decisions, formats and events as plain Rust data.
//! Nothing here knows about JavaScript; `cargo test` runs it natively.

pub mod config;
pub mod deadline;
pub mod decision;
pub mod details;
pub mod events;
pub mod extractive;
pub mod flight;
pub mod format;
pub mod identity;
pub mod js_number;
pub mod latch;
pub mod memory;
pub mod notation;
pub mod recall;
pub mod shapes;
pub mod span_bound;
pub mod visit;
