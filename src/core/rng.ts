/**
 * Seeded pseudo-random numbers: xoshiro128** (Blackman & Vigna), seeded through splitmix32.
 * One Rng is passed explicitly to whatever needs randomness, so the same seed gives the same trace,
 * and its 4-word state can be saved in a checkpoint and restored exactly.
 */
export class Rng {
  private readonly s: Uint32Array;

  constructor(seed: number | Uint32Array = 1) {
    if (seed instanceof Uint32Array) {
      if (seed.length !== 4 || seed.every((v) => v === 0)) throw new RangeError('Rng state must be 4 words, not all zero');
      this.s = Uint32Array.from(seed);
      return;
    }
    if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
    this.s = new Uint32Array(4);
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      // splitmix32 step
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.s[i] = (z ^ (z >>> 16)) >>> 0;
    }
    if (this.s.every((v) => v === 0)) this.s[0] = 1;
  }

  /** The generator state (a copy), for checkpoints. */
  get state(): Uint32Array {
    return Uint32Array.from(this.s);
  }

  /** The generator state itself (4 words): native code that draws from the same stream works on it. */
  get words(): Uint32Array {
    return this.s;
  }

  /** Next 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  next(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in 0..n-1 (n >= 1), without modulo bias. */
  int(n: number): number {
    if (!(n >= 1 && n <= 0x100000000 && Number.isInteger(n))) throw new RangeError(`Rng.int: bad bound ${n}`);
    const limit = 0x100000000 - (0x100000000 % n);
    let x: number;
    do x = this.nextU32();
    while (x >= limit);
    return x % n;
  }

  /** Fills `out` with a uniformly random permutation of 0..out.length-1 (Fisher-Yates). */
  permutation(out: Int32Array): Int32Array {
    for (let i = 0; i < out.length; i++) out[i] = i;
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = out[i]!;
      out[i] = out[j]!;
      out[j] = t;
    }
    return out;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
