/**
 * Full duality-gap pass throughput (issue 7): objects per second of the exact pass at a fixed w, side by
 * side: the per-object path (oracle, psi and loss block by block, as FW needs), the batched native pass on
 * 1 thread and on all threads. Data: OCR-large (falls back to generated chains without the data set).
 *
 *   npx tsx scripts/bench/gap-pass.ts [--repeats 5]
 */
import { availableParallelism, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { loadOcr, ocrSplit, ocrToSequences } from '../../src/data/ocr.js';
import { dataPath, hasData } from '../../src/data/paths.js';
import { syntheticChain } from '../../src/data/synthetic.js';
import { ChainModel, sequencesXY } from '../../src/models/chain.js';
import { modelProblem, type Problem } from '../../src/core/problem.js';
import { fullOraclePass } from '../../src/solvers/common.js';
import { bcfw } from '../../src/solvers/bcfw.js';

const { values } = parseArgs({ options: { repeats: { type: 'string', default: '5' } } });
const repeats = Number(values.repeats);
const real = hasData('ocr', 'letter.data.gz');
const data = real ? ocrToSequences(ocrSplit(loadOcr(dataPath('ocr', 'letter.data.gz')), 'large').train) : syntheticChain({ sequences: 6000 });
const { xs, ys } = sequencesXY(data.examples);
const D = data.numFeatures;
const K = data.numLabels;
const perObject = modelProblem(new ChainModel({ numFeatures: D, numLabels: K, backend: 'native' }), xs, ys);
// A trained w, so that the decoders see realistic scores (10 passes of BCFW).
const w = bcfw(perObject, { lambda: 1e-3, maxPasses: 10, gapCheck: 10 }).w;
const withoutBatch: Problem = { ...perObject, hingeAll: undefined };
const time = (p: Problem) => {
  fullOraclePass(p, w); // warm-up (also builds the batch)
  const t: number[] = [];
  let sum = 0;
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    sum = fullOraclePass(p, w).hingeSum;
    t.push((performance.now() - t0) / 1000);
  }
  t.sort((a, b) => a - b);
  return { seconds: t[t.length >> 1]!, hingeSum: sum };
};
const seq = time(withoutBatch);
const one = time(modelProblem(new ChainModel({ numFeatures: D, numLabels: K, threads: 1 }), xs, ys));
const all = time(modelProblem(new ChainModel({ numFeatures: D, numLabels: K, threads: availableParallelism() }), xs, ys));
const rate = (s: number) => Math.round(xs.length / s);
console.log(JSON.stringify({
  data: real ? 'ocr-large' : 'synthetic', n: xs.length, cpu: cpus()[0]?.model, threads: availableParallelism(),
  objectsPerSecond: { perObject: rate(seq.seconds), batched1Thread: rate(one.seconds), batchedAllThreads: rate(all.seconds) },
  ratioVsPerObject: { batched1Thread: +(seq.seconds / one.seconds).toFixed(2), batchedAllThreads: +(seq.seconds / all.seconds).toFixed(2) },
  sameGap: Math.abs(seq.hingeSum - all.hingeSum) <= 1e-9 * Math.max(1, Math.abs(seq.hingeSum)),
}));
