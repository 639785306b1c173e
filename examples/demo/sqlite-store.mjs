// The memory store interface of tests/support/memory-pipeline.mjs (put, get,
// list; async; entries in and out by value) on a real SQLite file, so the
// demo's conversation and its summaries survive between runs, with
// agentfootprint's conditional write for a fleet of processes sharing the
// file (`--processes`):
//
//   putIfVersion(identity, entry, expectedVersion) → { applied, currentVersion }
//
// applies only when the row under `entry.id` is absent or expired
// (expectedVersion 0), or live at exactly `expectedVersion`: one SQL
// statement, so SQLite's write lock makes the check and the write one step
// for every process. An entry whose `ttl` (unix ms) has passed is absent to
// every read.
//
// One row per entry, keyed by (identity key, entry id). The entry itself is
// stored as its JSON text, which keeps its key order byte for byte (stores that
// hash JSON see what the stage wrote). A few columns are copied out of the
// entry so SQL can order and count without parsing JSON:
//   updated_at  the entry's `updatedAt` (LoadRecent's recency order, indexed)
//   turn        the entry's `source.turn`
//   is_summary  1 when the entry carries summary coverage (SPEC §1's rule)
//   is_claim    1 when the entry is a fleet's claim on a span
//   version     the entry's `version`
//   expires_at  the entry's `ttl`, or NULL

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import { assertEntry, assertExpectedVersion, identityKey, isClaimEntry, isSummaryEntry } from '../../tests/support/memory-pipeline.mjs';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS memory_entries (
    identity_key TEXT    NOT NULL,
    id           TEXT    NOT NULL,
    entry_json   TEXT    NOT NULL,
    updated_at   REAL    NOT NULL,
    turn         REAL,
    is_summary   INTEGER NOT NULL,
    is_claim     INTEGER NOT NULL DEFAULT 0,
    version      REAL    NOT NULL DEFAULT 0,
    expires_at   REAL,
    PRIMARY KEY (identity_key, id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS memory_entries_recent
    ON memory_entries (identity_key, updated_at DESC, id DESC);
`;

/**
 * Opens (creating if needed) the SQLite file at `path` and returns the store.
 * `close()` releases the file; the store is unusable afterwards.
 */
export function openSqliteStore(path) {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // WAL lets a reader (a test, the sqlite3 shell) look at the file while a
  // run writes to it.
  db.pragma('journal_mode = WAL');
  // Processes sharing the file wait their turn to write instead of failing.
  db.pragma('busy_timeout = 10000');
  db.exec(SCHEMA);
  // A file from before claims: add their columns (each ALTER is one step).
  const columns = new Set(db.prepare('PRAGMA table_info(memory_entries)').all().map((column) => column.name));
  for (const [name, type] of [['is_claim', 'INTEGER NOT NULL DEFAULT 0'], ['version', 'REAL NOT NULL DEFAULT 0'], ['expires_at', 'REAL']]) {
    if (!columns.has(name)) db.exec(`ALTER TABLE memory_entries ADD COLUMN ${name} ${type}`);
  }
  const LIVE = '(expires_at IS NULL OR expires_at > @now)';

  const row = `(identity_key, id, entry_json, updated_at, turn, is_summary, is_claim, version, expires_at)
      VALUES (@identityKey, @id, @entryJson, @updatedAt, @turn, @isSummary, @isClaim, @version, @expiresAt)`;
  const replaceAll = `entry_json = excluded.entry_json, updated_at = excluded.updated_at, turn = excluded.turn,
        is_summary = excluded.is_summary, is_claim = excluded.is_claim, version = excluded.version,
        expires_at = excluded.expires_at`;
  const statements = {
    upsert: db.prepare(`INSERT INTO memory_entries ${row} ON CONFLICT (identity_key, id) DO UPDATE SET ${replaceAll}`),
    // expectedVersion 0: insert, or replace a row whose ttl has passed.
    insertIfAbsentOrExpired: db.prepare(`
      INSERT INTO memory_entries ${row} ON CONFLICT (identity_key, id) DO UPDATE SET ${replaceAll}
      WHERE memory_entries.expires_at IS NOT NULL AND memory_entries.expires_at <= @now`),
    // Otherwise: replace the live row at exactly that version.
    replaceAtVersion: db.prepare(`
      UPDATE memory_entries SET entry_json = @entryJson, updated_at = @updatedAt, turn = @turn,
        is_summary = @isSummary, is_claim = @isClaim, version = @version, expires_at = @expiresAt
      WHERE identity_key = @identityKey AND id = @id AND version = @expected AND ${LIVE}`),
    liveVersion: db.prepare(`SELECT version FROM memory_entries WHERE identity_key = @identityKey AND id = @id AND ${LIVE}`),
    get: db.prepare(`SELECT entry_json FROM memory_entries WHERE identity_key = @identityKey AND id = @id AND ${LIVE}`),
    list: db.prepare(`SELECT entry_json FROM memory_entries WHERE identity_key = @identityKey AND ${LIVE}`),
    // Same order as compareNewestFirst in the pipeline library (ids are ASCII,
    // so SQLite's byte order equals JavaScript's code-unit order).
    recent: db.prepare(`
      SELECT entry_json FROM memory_entries WHERE identity_key = @identityKey AND ${LIVE}
      ORDER BY updated_at DESC, id DESC LIMIT @limit`),
    counts: db.prepare(`
      SELECT COALESCE(SUM(is_summary = 0 AND is_claim = 0), 0) AS originals,
             COALESCE(SUM(is_summary = 1), 0) AS summaries,
             MAX(CASE WHEN is_summary = 0 AND is_claim = 0 THEN turn END) AS lastTurn,
             MAX(updated_at) AS newestUpdatedAt
      FROM memory_entries WHERE identity_key = @identityKey AND ${LIVE}`),
    summaries: db.prepare(`
      SELECT entry_json FROM memory_entries WHERE identity_key = @identityKey AND is_summary = 1 AND ${LIVE}
      ORDER BY turn, id`),
    originalsByRecency: db.prepare(`
      SELECT entry_json FROM memory_entries
      WHERE identity_key = @identityKey AND is_summary = 0 AND is_claim = 0 AND ${LIVE}
      ORDER BY updated_at DESC, id DESC LIMIT @limit`),
  };

  const rowOf = (identity, entry) => {
    const turn = entry.source?.turn;
    return {
      identityKey: identityKey(identity),
      id: entry.id,
      entryJson: JSON.stringify(entry),
      updatedAt: Number.isFinite(entry.updatedAt) ? entry.updatedAt : 0,
      turn: Number.isFinite(turn) ? turn : null,
      isSummary: isSummaryEntry(entry) ? 1 : 0,
      isClaim: isClaimEntry(entry) ? 1 : 0,
      version: Number.isFinite(entry.version) ? entry.version : 0,
      expiresAt: Number.isFinite(entry.ttl) ? entry.ttl : null,
      now: Date.now(),
    };
  };
  const key = (identity, extra) => ({ identityKey: identityKey(identity), now: Date.now(), ...extra });

  const parseRows = (rows) => rows.map((row) => JSON.parse(row.entry_json));

  return {
    path,

    async put(identity, entry) {
      assertEntry('put', entry);
      statements.upsert.run(rowOf(identity, entry));
    },

    async putIfVersion(identity, entry, expectedVersion) {
      assertEntry('putIfVersion', entry);
      assertExpectedVersion(expectedVersion);
      const params = rowOf(identity, entry);
      const { changes } =
        expectedVersion === 0
          ? statements.insertIfAbsentOrExpired.run(params)
          : statements.replaceAtVersion.run({ ...params, expected: expectedVersion });
      if (changes === 1) return { applied: true, currentVersion: params.version };
      return { applied: false, currentVersion: statements.liveVersion.get(params)?.version ?? 0 };
    },

    async get(identity, id) {
      const found = statements.get.get(key(identity, { id }));
      return found === undefined ? undefined : JSON.parse(found.entry_json);
    },

    async list(identity) {
      return parseRows(statements.list.all(key(identity)));
    },

    /**
     * The `limit` newest entries, oldest first: what LoadRecent keeps from
     * `list()`, answered from the recency index instead of a full scan.
     */
    async listRecent(identity, limit) {
      return parseRows(statements.recent.all(key(identity, { limit }))).reverse();
    },

    /** The `limit` newest ORIGINAL messages, oldest first (summaries and claims ignored). */
    async listRecentOriginals(identity, limit) {
      return parseRows(statements.originalsByRecency.all(key(identity, { limit }))).reverse();
    },

    /** Every summary entry of this identity, by the last turn it covers. */
    async listSummaries(identity) {
      return parseRows(statements.summaries.all(key(identity)));
    },

    /**
     * `{ originals, summaries, lastTurn, newestUpdatedAt }` for this identity:
     * row counts by kind, the highest turn of an original message (null when
     * none) and the newest `updatedAt` of any row (null when empty).
     */
    async stats(identity) {
      return statements.counts.get(key(identity));
    },

    close() {
      db.close();
    },
  };
}
