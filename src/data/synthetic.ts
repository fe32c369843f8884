import { check } from '../core/errors.js';
import type { SequenceDataset, SequenceExample } from '../core/data.js';
import { Rng } from '../core/rng.js';

/** Size and difficulty of the generated chain data set of {@link syntheticChain} (the CLI demo). */
export interface SyntheticChainOptions {
  /** Number of sequences. Default 300. */
  sequences?: number;
  /** States K. Default 8. */
  numLabels?: number;
  /** Binary features per position (a bias feature is appended). Default 24. */
  numFeatures?: number;
  /** Sequence lengths are uniform in [minLength, maxLength]. Defaults 4 and 9. */
  minLength?: number;
  maxLength?: number;
  /** Probability that a feature bit of the prototype is flipped. Default 0.2. */
  noise?: number;
  seed?: number;
}

/**
 * A small OCR-like chain data set generated on the fly (the `demo` data): every state has a random binary
 * prototype ("glyph"), an observation is its prototype with bits flipped at rate `noise`, plus a constant 1;
 * states follow a sparse random Markov chain, so transitions carry information the unaries lack.
 */
export function syntheticChain(options: SyntheticChainOptions = {}): SequenceDataset {
  const n = options.sequences ?? 300;
  const K = options.numLabels ?? 8;
  const F = options.numFeatures ?? 24;
  const minLength = options.minLength ?? 4;
  const maxLength = options.maxLength ?? 9;
  const noise = options.noise ?? 0.2;
  check(Number.isInteger(n) && n >= 1, `sequences must be a positive integer, got ${n}`);
  check(Number.isInteger(K) && K >= 2, `numLabels must be an integer >= 2, got ${K}`);
  check(Number.isInteger(F) && F >= 1, `numFeatures must be a positive integer, got ${F}`);
  check(Number.isInteger(minLength) && minLength >= 1 && maxLength >= minLength, `bad length range ${minLength}..${maxLength}`);
  check(noise >= 0 && noise <= 0.5, `noise must be in [0, 0.5], got ${noise}`);
  const rng = new Rng(options.seed ?? 7);
  const D = F + 1;
  const prototypes = Array.from({ length: K }, () => Uint8Array.from({ length: F }, () => rng.nextU32() & 1));
  // Each state has 2 likely successors (80%) and a uniform remainder.
  const successors = Array.from({ length: K }, () => [rng.int(K), rng.int(K)]);
  const examples: SequenceExample[] = [];
  for (let s = 0; s < n; s++) {
    const T = minLength + rng.int(maxLength - minLength + 1);
    const y = new Int32Array(T);
    const x = new Float64Array(T * D);
    y[0] = rng.int(K);
    for (let t = 0; t < T; t++) {
      if (t > 0) y[t] = rng.next() < 0.8 ? successors[y[t - 1]!]![rng.int(2)]! : rng.int(K);
      const proto = prototypes[y[t]!]!;
      for (let j = 0; j < F; j++) x[t * D + j] = rng.next() < noise ? 1 - proto[j]! : proto[j]!;
      x[t * D + F] = 1;
    }
    examples.push({ x, y, id: s });
  }
  const labelNames = Array.from({ length: K }, (_, k) => String.fromCharCode(97 + (k % 26)) + (k >= 26 ? String(k) : ''));
  return { examples, numFeatures: D, numLabels: K, labelNames };
}
