// The memory store interface of scripts/lib/memory-pipeline.mjs (put, get,
// list; async; entries in and out by value) on a real SQLite file, so the
// demo's conversation and its summaries survive between runs.
//
// One row per entry, keyed by (identity key, entry id). The entry itself is
// stored as its JSON text, which keeps its key order byte for byte (stores that
// hash JSON see what the stage wrote). A few columns are copied out of the
// entry so SQL can order and count without parsing JSON:
//   updated_at  the entry's `updatedAt` (LoadRecent's recency order, indexed)
//   turn        the entry's `source.turn`
//   is_summary  1 when the entry carries summary coverage (SPEC §1's rule)

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import { identityKey, isSummaryEntry } from '../lib/memory-pipeline.mjs';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS memory_entries (
    identity_key TEXT    NOT NULL,
    id           TEXT    NOT NULL,
    entry_json   TEXT    NOT NULL,
    updated_at   REAL    NOT NULL,
    turn         REAL,
    is_summary   INTEGER NOT NULL,
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
  db.exec(SCHEMA);

  const statements = {
    upsert: db.prepare(`
      INSERT INTO memory_entries (identity_key, id, entry_json, updated_at, turn, is_summary)
      VALUES (@identityKey, @id, @entryJson, @updatedAt, @turn, @isSummary)
      ON CONFLICT (identity_key, id) DO UPDATE SET
        entry_json = excluded.entry_json,
        updated_at = excluded.updated_at,
        turn       = excluded.turn,
        is_summary = excluded.is_summary`),
    get: db.prepare('SELECT entry_json FROM memory_entries WHERE identity_key = ? AND id = ?'),
    list: db.prepare('SELECT entry_json FROM memory_entries WHERE identity_key = ?'),
    // Same order as compareNewestFirst in the pipeline library (ids are ASCII,
    // so SQLite's byte order equals JavaScript's code-unit order).
    recent: db.prepare(`
      SELECT entry_json FROM memory_entries WHERE identity_key = ?
      ORDER BY updated_at DESC, id DESC LIMIT ?`),
    counts: db.prepare(`
      SELECT COALESCE(SUM(is_summary = 0), 0) AS originals,
             COALESCE(SUM(is_summary = 1), 0) AS summaries,
             MAX(CASE WHEN is_summary = 0 THEN turn END) AS lastTurn,
             MAX(updated_at) AS newestUpdatedAt
      FROM memory_entries WHERE identity_key = ?`),
    summaries: db.prepare(`
      SELECT entry_json FROM memory_entries WHERE identity_key = ? AND is_summary = 1
      ORDER BY turn, id`),
    originalsByRecency: db.prepare(`
      SELECT entry_json FROM memory_entries WHERE identity_key = ? AND is_summary = 0
      ORDER BY updated_at DESC, id DESC LIMIT ?`),
  };

  const parseRows = (rows) => rows.map((row) => JSON.parse(row.entry_json));

  return {
    path,

    async put(identity, entry) {
      if (entry === null || typeof entry !== 'object' || typeof entry.id !== 'string') {
        throw new TypeError(`store.put needs an entry with a string id; got ${JSON.stringify(entry)}`);
      }
      const turn = entry.source?.turn;
      statements.upsert.run({
        identityKey: identityKey(identity),
        id: entry.id,
        entryJson: JSON.stringify(entry),
        updatedAt: Number.isFinite(entry.updatedAt) ? entry.updatedAt : 0,
        turn: Number.isFinite(turn) ? turn : null,
        isSummary: isSummaryEntry(entry) ? 1 : 0,
      });
    },

    async get(identity, id) {
      const row = statements.get.get(identityKey(identity), id);
      return row === undefined ? undefined : JSON.parse(row.entry_json);
    },

    async list(identity) {
      return parseRows(statements.list.all(identityKey(identity)));
    },

    /**
     * The `limit` newest entries, oldest first: what LoadRecent keeps from
     * `list()`, answered from the recency index instead of a full scan.
     */
    async listRecent(identity, limit) {
      return parseRows(statements.recent.all(identityKey(identity), limit)).reverse();
    },

    /** The `limit` newest ORIGINAL messages, oldest first (summaries ignored). */
    async listRecentOriginals(identity, limit) {
      return parseRows(statements.originalsByRecency.all(identityKey(identity), limit)).reverse();
    },

    /** Every summary entry of this identity, by the last turn it covers. */
    async listSummaries(identity) {
      return parseRows(statements.summaries.all(identityKey(identity)));
    },

    /**
     * `{ originals, summaries, lastTurn, newestUpdatedAt }` for this identity:
     * row counts by kind, the highest turn of an original message (null when
     * none) and the newest `updatedAt` of any row (null when empty).
     */
    async stats(identity) {
      return statements.counts.get(identityKey(identity));
    },

    close() {
      db.close();
    },
  };
}
