//! footprint-summarize: agentfootprint's SUMMARIZE memory stage in Rust.
//!
//! `core` holds every decision and format as plain Rust; `bindings` (wasm32
//! only) reads JS entries, awaits JS promises and writes the scope.

pub mod core;

#[cfg(target_arch = "wasm32")]
pub mod bindings;
