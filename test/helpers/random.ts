// Seeded uniform numbers for tests and benchmarks: the package's own PRNG (src/core/rng.ts), as a function.
import { Rng } from '../../src/core/rng.js';

/** A reproducible source of uniform numbers in [0, 1) for `seed`. */
export function uniform(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}
