//! The fleet's claims protocol (SPEC §8, Claims): claim a span through the
//! store's `putIfVersion` before paying for it, and give the claim up when
//! the call or the write fails.

use super::*;

/// What a store's `putIfVersion` resolved to: `{ applied, currentVersion? }`.
pub struct ConditionalWrite {
    pub applied: bool,
    pub current_version: Option<f64>,
}

/// The fleet's claim on a span, as this run wrote it.
#[derive(Clone)]
pub struct HeldClaim<Writer> {
    pub id: String,
    /// The version the store holds it at: the expected version when it is
    /// given up (`claim_version` says why it is written as it is).
    pub version: f64,
    pub claimed_at: f64,
    /// What its entry's `createdAt` and `updatedAt` say (`claim_dated`).
    pub dated: f64,
    pub lease_ms: f64,
    /// The store's `putIfVersion` as the claim read it: the give-up calls
    /// the same function, not whatever the store holds after the awaits.
    pub writer: Writer,
}

/// `claim`'s entry on `candidate`'s span, its lease ending at `ttl`.
pub fn claim_entry<'a, W, V>(
    config: &StageConfig,
    candidate: &Candidate,
    claim: &'a HeldClaim<W>,
    ttl: f64,
    identity: Option<V>,
) -> ClaimEntry<'a, V> {
    let facts = candidate.span;
    let dated = claim.dated;
    ClaimEntry {
        id: &claim.id,
        value: Message { role: "system", content: "" },
        metadata: ClaimMetadata {
            summary_claim: Claim {
                from_turn: facts.from_turn,
                to_turn: facts.to_turn,
                entry_count: facts.entries,
                claimed_at_ms: claim.claimed_at,
                lease_ms: claim.lease_ms,
            },
        },
        version: claim.version,
        created_at: dated,
        updated_at: dated,
        last_accessed_at: claim.claimed_at,
        access_count: 0,
        ttl,
        tier: config.tier.as_str(),
        source: Source { turn: facts.to_turn, identity },
    }
}

/// What `putIfVersion(identity, claim, 0)` came to.
enum ClaimAnswer<Writer> {
    Held(HeldClaim<Writer>),
    /// Another process holds a live claim on the span.
    Elsewhere,
    /// The store has no `putIfVersion`: run as without claims.
    Unsupported,
    /// No answer to trust (a rejection, a deadline, a malformed answer).
    /// The claim may still land: `attempted` is what was written.
    Failed {
        cause: String,
        attempted: Option<HeldClaim<Writer>>,
    },
}

/// A started call and the claim it is paid under, if any.
type Claimed<H> = (Called<<H as Host>::Text>, Option<HeldClaim<<H as Host>::Writer>>);

/// How a run ended before its call: the outcome, and the claim it holds.
type Unclaimed<H> = (CallOutcome<<H as Host>::Entry>, Option<HeldClaim<<H as Host>::Writer>>);

impl<H: Host> Run<H> {
    /// `claims: true`: claim the span for the fleet, then start the call. A
    /// span another process holds, or a claim the store failed to take,
    /// makes no call (paying without a claim could pay once per process).
    pub(super) async fn claim_and_call(&self, lease_ms: f64) -> Result<Claimed<H>, Unclaimed<H>> {
        let host = &self.host;
        // A configured clock was read and checked before the call; `Date.now` otherwise.
        let now = self.clock_before_call.unwrap_or_else(|| host.wall_clock());
        let held = match self.claim(now, lease_ms).await {
            ClaimAnswer::Held(held) => Some(held),
            ClaimAnswer::Unsupported => None,
            ClaimAnswer::Elsewhere => return Err((CallOutcome::ClaimedElsewhere, None)),
            ClaimAnswer::Failed { cause, attempted } => {
                // A claim that timed out may still land (a client that queues
                // while the server is away): give it up behind it, unawaited.
                if let Some(attempted) = attempted {
                    host.detach(self.start_give_up(&attempted));
                }
                let claim_id = self.candidate.claim_id();
                host.warn_once(|| warning::claim_refused(&self.config().strategy_id, &claim_id, &cause));
                return Err((CallOutcome::ClaimFailed { cause }, None));
            }
        };
        match host.summarize(&self.span) {
            Ok(call) => Ok((call, held)),
            Err(what) => Err((CallOutcome::Unreadable { what }, held)),
        }
    }

    /// `await store.putIfVersion(identity, claim, 0)`: 0 means "only if no
    /// live claim is there", so of all the runs over a span, one holds it.
    async fn claim(&self, now: f64, lease_ms: f64) -> ClaimAnswer<H::Writer> {
        let host = &self.host;
        let writer = match host.claim_writer() {
            Ok(Some(writer)) => writer,
            Ok(None) => return ClaimAnswer::Unsupported,
            Err(cause) => return ClaimAnswer::Failed { cause, attempted: None },
        };
        let version = claim_version(now, host.random());
        let dated = claim_dated(self.oldest_dated, now);
        let held = HeldClaim { id: self.candidate.claim_id(), version, claimed_at: now, dated, lease_ms, writer };
        match host.write_claim(&self.candidate, &held, now + lease_ms, 0.0).await {
            Ok(written) if written.applied => {
                ClaimAnswer::Held(HeldClaim { version: written.current_version.unwrap_or(held.version), ..held })
            }
            Ok(_) => ClaimAnswer::Elsewhere,
            Err(cause) => ClaimAnswer::Failed { cause, attempted: Some(held) },
        }
    }

    /// Gives a claim up at once (its call failed, no call could be made, or
    /// its summary could not be written), so the next turn can claim the
    /// span again. Waiting runs have gone on already: this is the run's own.
    pub(super) async fn give_up(&self, held: HeldClaim<H::Writer>) -> ClaimState {
        let given_up = match self.start_give_up(&held).await {
            Ok(written) if written.applied => GiveUp::Done,
            Ok(_) => GiveUp::Refused,
            Err(cause) => GiveUp::Failed(cause),
        };
        ClaimState::Released { id: held.id, given_up }
    }

    /// Writes the same claim, expiring a millisecond from now, only over
    /// this run's own version of it. (`ttl = now` would be a zero expiry,
    /// which some stores refuse.)
    fn start_give_up(&self, held: &HeldClaim<H::Writer>) -> Pending<Result<ConditionalWrite, String>> {
        let now = clock(&self.host).unwrap_or(held.claimed_at);
        let released = HeldClaim { version: held.version + 1.0, ..held.clone() };
        self.host.write_claim(&self.candidate, &released, now + 1.0, held.version)
    }
}
