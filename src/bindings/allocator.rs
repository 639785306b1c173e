//! The module's global allocator: talc, with a free list per small size
//! class in front of it.
//!
//! Talc instead of Rust's default dlmalloc: about 5 KB less Wasm. But a visit
//! allocates and frees a dozen small buffers (the packed facts, the
//! partition, recall slots, the event text), and talc's binning and gap
//! bookkeeping cost about 30 ns a pair: 10% of a coverage turn at N = 20 in
//! the Wasm profile. A block of at most `LARGEST_CLASS` bytes is therefore
//! rounded up to a power of two and, once freed, kept on its class's list for
//! the next request of that class: a pop and a push instead of a search.
//! Larger blocks go to talc as they are.
//!
//! What a list keeps is never handed back to talc, so the small-block memory
//! is bounded by the most that was live at once per class, which is what the
//! soak (`scripts/soak.mjs`) watches. The module has one thread (wasm32
//! without atomics), so the lists need no lock.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr;

/// Classes of 16, 32, …, 2048 bytes.
const CLASSES: usize = 8;
const SMALLEST_CLASS_SHIFT: u32 = 4;
const LARGEST_CLASS: usize = 1 << (SMALLEST_CLASS_SHIFT as usize + CLASSES - 1);
/// Every class block is this aligned, so it serves any request up to it.
const CLASS_ALIGN: usize = 16;

pub struct SmallBlockCache {
    talc: talc::wasm::WasmDynamicTalc,
    /// Per class, the most recently freed block; each free block's first
    /// word points to the next one (null ends the list).
    free: UnsafeCell<[*mut u8; CLASSES]>,
}

// SAFETY: wasm32 without atomics runs one thread, so `free` is never touched
// by two at once (the same reasoning talc's own `TalcSyncCell` relies on).
unsafe impl Sync for SmallBlockCache {}

impl SmallBlockCache {
    pub const fn new() -> Self {
        SmallBlockCache {
            talc: talc::wasm::new_wasm_dynamic_allocator(),
            free: UnsafeCell::new([ptr::null_mut(); CLASSES]),
        }
    }
}

/// The class a request is served from, or `None` for talc.
fn class_of(layout: Layout) -> Option<usize> {
    if layout.size() > LARGEST_CLASS || layout.align() > CLASS_ALIGN {
        return None;
    }
    let rounded = layout.size().max(1 << SMALLEST_CLASS_SHIFT).next_power_of_two();
    Some((rounded.trailing_zeros() - SMALLEST_CLASS_SHIFT) as usize)
}

fn class_layout(class: usize) -> Layout {
    // SAFETY: a power of two no larger than LARGEST_CLASS, with a power-of-two align.
    unsafe { Layout::from_size_align_unchecked(1 << (class + SMALLEST_CLASS_SHIFT as usize), CLASS_ALIGN) }
}

// Each entry point is a call, not inlined into every `Vec` drop and push in
// the module: inlined, they cost about 1 KB of gzipped Wasm, against a 40 KB
// budget, and the call is a few nanoseconds.
unsafe impl GlobalAlloc for SmallBlockCache {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else {
            return self.talc.alloc(layout);
        };
        let free = &mut *self.free.get();
        let head = free[class];
        if head.is_null() {
            return self.talc.alloc(class_layout(class));
        }
        free[class] = *(head as *mut *mut u8);
        head
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some(class) = class_of(layout) else {
            return self.talc.dealloc(block, layout);
        };
        let free = &mut *self.free.get();
        *(block as *mut *mut u8) = free[class];
        free[class] = block;
    }

    #[inline(never)]
    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        match (class_of(layout), class_of(new_layout)) {
            // The block already has room: its class is a power of two.
            (Some(old), Some(new)) if old == new => block,
            (None, None) => self.talc.realloc(block, layout, new_size),
            _ => {
                let moved = self.alloc(new_layout);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                    self.dealloc(block, layout);
                }
                moved
            }
        }
    }
}
