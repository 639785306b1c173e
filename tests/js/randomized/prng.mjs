// A tiny seeded PRNG (mulberry32) with the few draws the scenario generator
// needs. Seeded so any failing scenario can be replayed from its seed alone.

export function createRandom(seed) {
  let state = seed >>> 0;
  const float = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min, max) => min + Math.floor(float() * (max - min + 1));
  return {
    float,
    int,
    chance: (probability) => float() < probability,
    pick: (items) => items[Math.floor(float() * items.length)],
    /** Draws a fresh 31-bit seed, for sub-generators that must not shift this stream. */
    seed: () => int(0, 0x7fffffff),
  };
}
