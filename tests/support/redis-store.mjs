// The memory store interface of tests/support/memory-pipeline.mjs on Redis,
// over the `redis` npm client, with agentfootprint's conditional write:
//
//   putIfVersion(identity, entry, expectedVersion) → { applied, currentVersion }
//
// applies only when the entry stored under `entry.id` is absent or expired
// (expectedVersion 0), or live at exactly `expectedVersion`. It is one Lua
// script, so the check and the write are one atomic step for every process
// sharing the server, and it judges expiry by one clock, the server's (the
// writer's clock set the `ttl`; reads judge it by the reader's).
//
// One hash per identity (field = entry id, value = the entry's JSON text, key
// order kept byte for byte). An entry whose `ttl` (unix ms) has passed is
// absent to every read. While the server is unreachable the client queues
// commands and reconnects (the client's default), so a restart delays a turn
// instead of failing it or losing its writes; the summarize stage bounds its
// own claim and write with `timeoutMs`, and serves recall verbatim, saying
// so, when one runs out.

import { createClient, defineScript } from 'redis';

import {
  assertEntry,
  assertExpectedVersion,
  compareNewestFirst,
  identityKey,
  isClaimEntry as isClaim,
  isSummaryEntry,
} from './memory-pipeline.mjs';

/** KEYS[1] the identity's hash; ARGV: id, entry JSON, expected version, the entry's version. */
const PUT_IF_VERSION_SCRIPT = `
local stored = redis.call('HGET', KEYS[1], ARGV[1])
local expected = tonumber(ARGV[3])
local live = false
local version = 0
if stored then
  local entry = cjson.decode(stored)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if type(entry.ttl) ~= 'number' or entry.ttl > now then
    live = true
    version = tonumber(entry.version) or 0
  end
end
if (expected == 0 and live) or (expected ~= 0 and ((not live) or version ~= expected)) then
  return {0, version}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {1, tonumber(ARGV[4]) or 0}
`;

/** The client sends it by its SHA1 (EVALSHA), loading it once when the server lacks it. */
const putIfVersion = defineScript({
  SCRIPT: PUT_IF_VERSION_SCRIPT,
  NUMBER_OF_KEYS: 1,
  parseCommand(parser, key, id, entryJson, expectedVersion, entryVersion) {
    parser.pushKey(key);
    parser.push(id, entryJson, expectedVersion, entryVersion);
  },
  transformReply: undefined,
});

/** The Redis key of an identity's hash. */
export const hashKey = (identity) => `footprint-summarize:memory:${identityKey(identity)}`;

const isLive = (entry, now) => !(typeof entry.ttl === 'number' && entry.ttl <= now);

/**
 * Connects to the Redis server at `url` (e.g. `redis://127.0.0.1:6390`) and
 * returns the store. `close()` disconnects.
 */
export async function openRedisStore(url, { connectTimeoutMs = 2000 } = {}) {
  const client = createClient({
    url,
    scripts: { putIfVersion },
    socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 500) },
  });
  // Without a listener a lost connection is an uncaught 'error' event; the
  // commands made meanwhile fail on their own, which is where it matters.
  client.on('error', () => {});
  await client.connect();

  async function entries(identity) {
    const fields = await client.hVals(hashKey(identity));
    const now = Date.now();
    return fields.map((text) => JSON.parse(text)).filter((entry) => isLive(entry, now));
  }

  return {
    url,

    async put(identity, entry) {
      assertEntry('put', entry);
      await client.hSet(hashKey(identity), entry.id, JSON.stringify(entry));
    },

    async putIfVersion(identity, entry, expectedVersion) {
      assertEntry('putIfVersion', entry);
      assertExpectedVersion(expectedVersion);
      const [applied, currentVersion] = await client.putIfVersion(
        hashKey(identity),
        entry.id,
        JSON.stringify(entry),
        String(expectedVersion),
        String(entry.version ?? 0),
      );
      return { applied: applied === 1, currentVersion };
    },

    async get(identity, id) {
      const text = await client.hGet(hashKey(identity), id);
      const entry = text === null || text === undefined ? undefined : JSON.parse(text);
      return entry !== undefined && isLive(entry, Date.now()) ? entry : undefined;
    },

    async list(identity) {
      return entries(identity);
    },

    /** The `limit` newest live entries, oldest first (LoadRecent's order). */
    async listRecent(identity, limit) {
      return (await entries(identity)).sort(compareNewestFirst).slice(0, limit).reverse();
    },

    /** The `limit` newest ORIGINAL messages, oldest first (summaries and claims ignored). */
    async listRecentOriginals(identity, limit) {
      const originals = (await entries(identity)).filter((entry) => !isSummaryEntry(entry) && !isClaim(entry));
      return originals.sort(compareNewestFirst).slice(0, limit).reverse();
    },

    /** Every live summary entry of this identity, by the last turn it covers. */
    async listSummaries(identity) {
      const summaries = (await entries(identity)).filter(isSummaryEntry);
      return summaries.sort((a, b) => a.source.turn - b.source.turn || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },

    /** `{ originals, summaries, lastTurn, newestUpdatedAt }`, as the SQLite store reports them. */
    async stats(identity) {
      const all = await entries(identity);
      const originals = all.filter((entry) => !isSummaryEntry(entry) && !isClaim(entry));
      const turns = originals.map((entry) => entry.source?.turn).filter(Number.isFinite);
      const stamps = all.map((entry) => entry.updatedAt).filter(Number.isFinite);
      return {
        originals: originals.length,
        summaries: all.filter(isSummaryEntry).length,
        lastTurn: turns.length ? Math.max(...turns) : null,
        newestUpdatedAt: stamps.length ? Math.max(...stamps) : null,
      };
    },

    /** Deletes this identity's entries (tests and `--reset`). */
    async clear(identity) {
      await client.del(hashKey(identity));
    },

    async close() {
      await client.close();
    },
  };
}
