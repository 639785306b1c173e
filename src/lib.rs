//! footprint-summarize: agentfootprint's SUMMARIZE memory stage in Rust.
//!
//! `core` holds every decision and format as plain Rust; `bindings` (wasm32
//! only) reads JS entries, awaits JS promises and writes the scope.

pub mod core;

#[cfg(target_arch = "wasm32")]
pub mod bindings;

/// Talc instead of Rust's default Wasm allocator (dlmalloc): a smaller
/// download and module at the same speed and memory (README, "Size").
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
