/**
 * Per-call overhead of the native layer (issue 17 item 5): what a batched call costs beyond its arithmetic,
 * now that parallel_for runs on one persistent thread pool and per-pass-constant data lives in prepared
 * native objects (validated once) instead of being re-sent and re-checked on every call; and what that buys
 * the multi-core training of issue 19, which decodes a mini-batch of tau blocks together (subset decoding)
 * instead of tau per-object oracle calls.
 *
 *   npx tsx scripts/bench/native-overhead.ts [--quick] [--baseline ADDON.node]
 *
 * Rows, each timed round-robin against its partner in the same run (median of many calls):
 *  - `viterbi(m seqs, T threads)`: Viterbi of m OCR words through the prepared DenseChainBatch (items = the m
 *    words) against, with --baseline, the addon built from the commit before this change (positional
 *    chainViterbiBatch on the same words packed beforehand: threads started per call, offsets and node
 *    scores re-checked per call);
 *  - `scoreRows(N rows, T threads)`: the native scoring backend's prepared rows against the baseline's
 *    positional scoreRows on the same rows;
 *  - `decodeSubset(tau)`: the loss-augmented decode of tau blocks together (Problem.batch.decodeSubset: score,
 *    Viterbi and float64 recheck on the thread pool) against tau per-object oracle calls (Problem.oracle, one
 *    C++ Viterbi each, on the JavaScript thread), on OCR-large.
 * Build the baseline addon from the earlier commit, e.g.
 *   git archive 54ff8c0 | tar -x -C /tmp/base && cd /tmp/base && ln -s $PWD/../node_modules . && npx cmake-js compile
 * Data: OCR-large from ../shared/data (or $GAPBCFW_DATA); synthetic chains of the same shape when absent.
 */
import { availableParallelism, cpus } from 'node:os';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { modelProblem } from '../../src/engine/problem.js';
import { Rng } from '../../src/core/rng.js';
import { loadOcr, ocrSplit, ocrToSequences } from '../../src/data/ocr.js';
import { dataPath, hasData } from '../../src/data/paths.js';
import { syntheticChain } from '../../src/data/synthetic.js';
import { ChainModel, packSequences, sequencesXY } from '../../src/models/chain.js';
import { native } from '../../src/native/addon.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, baseline: { type: 'string' } } });
const calls = values.quick ? 400 : 3000;
const rounds = values.quick ? 5 : 11;
/** The positional batch functions of the addon before prepared objects (only those this benchmark calls). */
interface BaselineBinding {
  chainViterbiBatch(theta: Float64Array, offsets: Int32Array, trans: Float64Array, K: number, outY: Int32Array, threads: number): void;
  scoreRows(X: Float64Array, N: number, D: number, W: Float64Array, K: number, augLabels: Int32Array | null, augWeight: Float64Array | null, out: Float64Array, threads: number): void;
}
const baseline = values.baseline ? (createRequire(import.meta.url)(values.baseline) as BaselineBinding) : undefined;

/** Median microseconds per call of each function, timed in alternating rounds of `calls` calls. */
function race(fs: (() => void)[]): number[] {
  const times: number[][] = fs.map(() => []);
  for (const f of fs) for (let k = 0; k < 50; k++) f(); // warm-up (and the pool's threads started)
  for (let r = 0; r < rounds; r++) {
    fs.forEach((f, j) => {
      const t0 = performance.now();
      for (let k = 0; k < calls; k++) f();
      times[j]!.push(((performance.now() - t0) * 1000) / calls);
    });
  }
  return times.map((t) => +[...t].sort((a, b) => a - b)[t.length >> 1]!.toFixed(2));
}

const real = hasData('ocr', 'letter.data.gz');
const data = real ? ocrToSequences(ocrSplit(loadOcr(dataPath('ocr', 'letter.data.gz')), 'large').train) : syntheticChain({ sequences: 6000, numFeatures: 129, numLabels: 26 });
const { xs, ys } = sequencesXY(data.examples);
const D = data.numFeatures;
const K = data.numLabels;
const threads = Math.min(2, availableParallelism());
const model = new ChainModel({ numFeatures: D, numLabels: K, threads });
const rng = new Rng(1);
const w = Float64Array.from({ length: model.dim }, () => (rng.next() - 0.5) * 0.1);
const trans = w.subarray(model.offsets.transitions);
const rows: Record<string, unknown>[] = [];

// Prepared chain batch of the whole set, its node scores at w.
const n = ys.length;
const { offsets, xAll, yAll } = packSequences(xs, ys, D);
const tokens = offsets[n]!;
const batch = new native.DenseChainBatch({ offsets, truth: yAll, numLabels: K, numFeatures: D, features: xAll });
const theta = new Float64Array(tokens * K);
batch.scores({ w, theta, augmented: true, threads });
const labels = new Int32Array(tokens);

for (const m of [2, 8]) {
  for (const t of [1, threads]) {
    const items = Int32Array.from({ length: m }, () => rng.int(n));
    // the same words packed end to end for the positional call
    const subOffsets = new Int32Array(m + 1);
    items.forEach((i, q) => (subOffsets[q + 1] = subOffsets[q]! + offsets[i + 1]! - offsets[i]!));
    const subTheta = new Float64Array(subOffsets[m]! * K);
    items.forEach((i, q) => subTheta.set(theta.subarray(offsets[i]! * K, offsets[i + 1]! * K), subOffsets[q]! * K));
    const subOut = new Int32Array(subOffsets[m]!);
    const prepared = () => batch.viterbi({ w, theta, labels, items, threads: t });
    const fs = baseline ? [prepared, () => baseline.chainViterbiBatch(subTheta, subOffsets, trans, K, subOut, t)] : [prepared];
    const [now, before] = race(fs);
    rows.push({ call: `viterbi(${m} words, ${t} thread${t > 1 ? 's' : ''})`, preparedUs: now, ...(before !== undefined ? { baselineUs: before, speedup: +(before / now!).toFixed(2) } : {}) });
  }
}

for (const N of [64, 1024]) {
  const X = xAll.subarray(0, N * D);
  const W = w.subarray(0, K * D);
  const out = new Float64Array(N * K);
  const aug = { labels: yAll.subarray(0, N), weight: new Float64Array(N).fill(0.125) };
  const prepared = new native.ScoringRows({ X, rows: N, cols: D });
  const fs = [() => prepared.score({ W, K, out, augLabels: aug.labels, augWeight: aug.weight, threads })];
  if (baseline) fs.push(() => baseline.scoreRows(X, N, D, W, K, aug.labels, aug.weight, out, threads));
  const [now, before] = race(fs);
  rows.push({ call: `scoreRows(${N} rows, ${threads} threads)`, preparedUs: now, ...(before !== undefined ? { baselineUs: before, speedup: +(before / now!).toFixed(2) } : {}) });
}

const problem = modelProblem(model, xs, ys);
for (const tau of [1, 4, 16, 64]) {
  const blocks = Int32Array.from({ length: tau }, () => rng.int(n));
  const got: Int32Array[] = [];
  const hinge = new Float64Array(tau);
  const [subset, perObject] = race([
    () => problem.batch!.decodeSubset(w, blocks, tau, got, hinge),
    () => {
      for (let q = 0; q < tau; q++) problem.oracle(blocks[q]!, w);
    },
  ]);
  rows.push({ call: `decodeSubset(tau = ${tau})`, subsetUs: subset, perObjectUs: perObject, ratioVsPerObject: +(perObject! / subset!).toFixed(2) });
}

console.log(JSON.stringify({ cpu: cpus()[0]?.model, threads, data: real ? 'ocr-large' : 'synthetic chains', baseline: values.baseline ?? null, calls, rounds, rows }, null, 1));
