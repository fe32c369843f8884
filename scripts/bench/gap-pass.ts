/**
 * Full duality-gap pass throughput (issue 7): objects per second of the exact pass at a fixed, trained w,
 * per model and per scoring backend, side by side with the per-object path (oracle, psi and loss block by
 * block, as batch FW needs). Each batched row also says whether its gap equals the per-object one (to
 * 1e-9 relative for float64 backends, 1e-6 for float32).
 *
 *   npx tsx scripts/bench/gap-pass.ts [--repeats 5] [--models chain,multiclass,conll,pose] [--gpujs-cpu] [--horse DIR [--horse-limit N]] [--pose-limit N]
 *
 * Data: OCR-large (chain), Fashion-MNIST test (multiclass, 10,000 x 784) and CoNLL-2000 train (sparse
 * chain; only when present) from ../shared/data (or
 * $GAPBCFW_DATA); generated data of the same shapes when they are absent. --horse adds the segmentation
 * model on a prepared horse set (gapbcfw prepare-horse; its training split, at most --horse-limit images).
 * `pose` runs the LSP pose model on the first --pose-limit (200) LSP-small training images when LSP is
 * present. gpu.js cpu mode is plain JS and slow: pass --gpujs-cpu to include it.
 */
import { toArrays } from '../../src/core/dataset.js';
import { availableParallelism, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { GpuJsBackend, JsBackend, NativeBackend, type ScoringBackend } from '../../kernels/index.js';
import { type Problem, type StructuredModel } from '../../src/core/problem.js';
import { modelProblem } from '../../src/engine/problem.js';
import { Rng } from '../../src/core/rng.js';
import type { SparseVector } from '../../src/core/vector.js';
import { loadIdxDataset } from '../../src/data/idx.js';
import { loadOcr, ocrSplit, ocrToSequences } from '../../src/data/ocr.js';
import { dataPath, hasData } from '../../src/data/paths.js';
import { syntheticChain } from '../../src/data/synthetic.js';
import { ChainModel, sequencesXY } from '../../src/models/chain.js';
import { MulticlassModel, csrRows } from '../../src/models/multiclass.js';
import { SegmentationModel } from '../../src/models/segmentation.js';
import { HorseDataset } from '../../src/data/horse.js';
import { bcfw } from '../../src/solvers/bcfw.js';
import { fullOraclePass } from '../../src/solvers/common.js';
import { loadTask } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';
import { loadLspJoints, lspExamples, lspSplit, meanOffsets } from '../../src/data/lsp.js';
import { LSP_TREE_PARENTS } from '../../src/models/pose-eval.js';
import { PoseModel } from '../../src/models/pose.js';

const { values } = parseArgs({
  options: { repeats: { type: 'string', default: '5' }, models: { type: 'string', default: 'chain,multiclass,conll' }, 'gpujs-cpu': { type: 'boolean' }, horse: { type: 'string' }, 'horse-limit': { type: 'string', default: '1000' }, 'pose-limit': { type: 'string', default: '200' } },
});
const repeats = Number(values.repeats);
const threads = availableParallelism();

function backends(): [string, () => ScoringBackend | undefined][] {
  const list: [string, () => ScoringBackend | undefined][] = [
    ['model default', () => undefined],
    [`native scoreRows x${threads}`, () => new NativeBackend(threads)],
    ['native scoreRows x1', () => new NativeBackend(1)],
    ['js', () => new JsBackend()],
    ['gpujs (default mode)', () => new GpuJsBackend()],
  ];
  if (values['gpujs-cpu']) list.push(['gpujs cpu', () => new GpuJsBackend({ mode: 'cpu' })]);
  return list;
}

/** One timed pass per configuration per round, round-robin, so that load drift hits every row alike. */
function bench<X, Y>(name: string, model: StructuredModel<X, Y>, xs: X[], ys: Y[], w: Float64Array, list = backends()): Record<string, unknown> {
  const configs: { label: string; scoring?: ScoringBackend; problem: Problem; seconds: number[]; hingeSum: number }[] = [
    { label: 'per-object', problem: { ...(modelProblem(model, xs, ys) as Problem), batch: undefined }, seconds: [], hingeSum: 0 },
  ];
  for (const [label, make] of list) {
    const scoring = make();
    configs.push({ label, ...(scoring ? { scoring } : {}), problem: modelProblem(model, xs, ys, { scoring }) as Problem, seconds: [], hingeSum: 0 });
  }
  for (const c of configs) fullOraclePass(c.problem, w); // warm-up: prepares batches, compiles kernels
  for (let r = 0; r < repeats; r++) {
    for (const c of configs) {
      const t0 = performance.now();
      c.hingeSum = fullOraclePass(c.problem, w).hingeSum;
      c.seconds.push((performance.now() - t0) / 1000);
    }
  }
  const median = (t: number[]) => [...t].sort((a, b) => a - b)[t.length >> 1]!;
  const ref = configs[0]!;
  const rows: Record<string, unknown> = {};
  for (const c of configs.slice(1)) {
    const tolerance = (c.scoring?.precision === 'float32' ? 1e-6 : 1e-9) * Math.max(1, Math.abs(ref.hingeSum));
    rows[c.label] = {
      mode: c.scoring?.mode ?? 'model default',
      objectsPerSecond: Math.round(xs.length / median(c.seconds)),
      ratioVsPerObject: +(median(ref.seconds) / median(c.seconds)).toFixed(2),
      sameGap: Math.abs(c.hingeSum - ref.hingeSum) <= tolerance,
    };
    c.scoring?.dispose();
  }
  return { model: name, n: xs.length, dim: model.dim, perObjectPerSecond: Math.round(xs.length / median(ref.seconds)), backends: rows };
}

const results: Record<string, unknown>[] = [];
const models = values.models.split(',');
if (models.includes('chain')) {
  const real = hasData('ocr', 'letter.data.gz');
  const data = real ? ocrToSequences(ocrSplit(loadOcr(dataPath('ocr', 'letter.data.gz')), 'large').train) : syntheticChain({ sequences: 6000, numFeatures: 129, numLabels: 26 });
  const { xs, ys } = sequencesXY(data.examples);
  const model = new ChainModel({ numFeatures: data.numFeatures, numLabels: data.numLabels, threads });
  const w = bcfw(modelProblem(model, xs, ys), { lambda: 1e-3, maxPasses: 10, gapCheck: 10 }).w; // realistic scores
  results.push({ data: real ? 'ocr-large' : 'synthetic chains', ...bench('chain', model, xs, ys, w) });
}
if (models.includes('multiclass')) {
  const real = hasData('multiclass', 'fashion_mnist_test', 't10k-images-idx3-ubyte.gz');
  let xs: SparseVector[];
  let ys: number[];
  let F: number;
  let K: number;
  if (real) {
    const d = loadIdxDataset(dataPath('multiclass', 'fashion_mnist_test', 't10k-images-idx3-ubyte.gz'));
    xs = csrRows(d.X);
    ys = Array.from(d.y);
    F = d.X.cols;
    K = d.numLabels;
  } else {
    const rng = new Rng(1);
    F = 784;
    K = 10;
    xs = Array.from({ length: 10000 }, () => {
      const indices = Int32Array.from({ length: F }, (_, j) => j).filter(() => rng.next() < 0.5);
      return { indices, values: Float64Array.from(indices, () => rng.next()), nnz: indices.length };
    });
    ys = xs.map(() => rng.int(K));
  }
  const model = new MulticlassModel(F, K);
  const w = bcfw(modelProblem(model, xs, ys), { lambda: 1e-3, maxPasses: 5, gapCheck: 5 }).w;
  results.push({ data: real ? 'fashion-mnist-test' : 'synthetic multiclass', ...bench('multiclass', model, xs, ys, w) });
}
if (models.includes('conll') && hasData('conll2000', 'train.txt')) {
  // Sparse attributes: scored natively whatever the backend (gpu.js kernels take dense rows).
  const task = await loadTask(`conll:${dataPath('conll2000', 'train.txt')}`);
  const model = buildModel(task.spec);
  const { xs, ys } = toArrays(task.train);
  const w = bcfw(modelProblem(model, task.train), { lambda: 1e-3, maxPasses: 3, gapCheck: 3 }).w;
  results.push({ data: 'conll2000 train', ...bench('sparse chain', model, [...xs], [...ys], w, [['model default', () => undefined]]) });
}
if (values.horse !== undefined) {
  const ds = new HorseDataset(values.horse);
  const { xs, ys } = ds.load('train', Number(values['horse-limit']));
  const model = new SegmentationModel({ dUnary: ds.meta.dUnary, dPairwise: ds.meta.dPairwise });
  const w = bcfw(modelProblem(model, xs, ys), { lambda: 10, maxPasses: 5, gapCheck: 5 }).w;
  results.push({ data: `horse ${values.horse}`, ...bench('segmentation', model, xs, ys, w) });
}
if (models.includes('pose') && hasData('lsp', 'joints.mat')) {
  // LSP images as in `gapbcfw pose train` (HOG cells, sbin 4); filter responses + GDT tree max-sum.
  const dir = dataPath('lsp');
  const ann = loadLspJoints(dir);
  const { train: trIdx } = lspSplit(ann.length, 'small');
  const set = await lspExamples(dir, ann, trIdx.slice(0, Number(values['pose-limit'])), { sbin: 4 });
  const xs = set.map((e) => e.input);
  const ys = set.map((e) => e.label);
  const model = new PoseModel({ parents: LSP_TREE_PARENTS, meanOffsets: meanOffsets(ys, LSP_TREE_PARENTS), threads });
  const w = bcfw(modelProblem(model, xs, ys), { lambda: 0.01, maxPasses: 2, gapCheck: 2 }).w;
  results.push({ data: `lsp-small train (${xs.length} images)`, ...bench('pose', model, xs, ys, w) });
}
console.log(JSON.stringify({ cpu: cpus()[0]?.model, threads, repeats, results }, null, 1));
