//! The summary entry a fold writes (SPEC §2), as plain data over the host's
//! own values.

use super::*;

/// The summary entry on `candidate`'s span (SPEC §2), folded at `now`,
/// with the host's `content`, the span's own ids as `covered_ids` (and the
/// claim it was paid under, so every reader leaves the claim out) and the
/// `identity` its first entry names.
pub fn summary_entry<'a, V>(
    config: &'a StageConfig,
    candidate: &Candidate,
    now: f64,
    audit: &'a Audit,
    content: V,
    covered_ids: V,
    identity: Option<V>,
) -> SummaryEntry<'a, V> {
    let facts = candidate.span;
    let anchor = candidate.anchor.unwrap_or(now);
    SummaryEntry {
        id: candidate.summary_id(),
        value: Message { role: "system", content },
        metadata: Metadata {
            summarizes: Coverage {
                from_turn: facts.from_turn,
                to_turn: facts.to_turn,
                entry_count: facts.entries,
                covered_ids,
                model: config.model(),
                summarized_at_ms: now,
                dropped_details: audit.listed(),
            },
        },
        version: 1,
        created_at: anchor,
        updated_at: anchor,
        last_accessed_at: now,
        access_count: 0,
        ttl: config.ttl_ms.map(|ttl| anchor + ttl),
        tier: config.tier.as_str(),
        source: Source { turn: facts.to_turn, identity },
    }
}
