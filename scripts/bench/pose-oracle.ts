/**
 * Pose oracle cost (issue 21): milliseconds per LSP image of one loss-augmented oracle call on one core
 * (`PoseModel.lossAugmentedDecode`: filter responses of every part type on every pyramid level, loss maps, tree
 * max-sum over cells and types with GDT messages), and of its filter responses alone, for pose models of several
 * shapes: types per part, with or without midpoints, pyramid levels. Configurations are timed round-robin (one
 * call per image per round) so that load drift hits them alike; each reports the median over rounds of the mean
 * per image, and its ratio to the first configuration. w is random (every filter tap non-zero: zero taps are
 * skipped) with positive quadratic deformation coefficients: the cost does not depend on its values otherwise.
 *
 *   npx tsx scripts/bench/pose-oracle.ts [--images 20] [--rounds 5] [--types 1,3,6] [--scales 1 --scales 1,0.8,1.25]
 *
 * Prints one JSON object. Data: $GAPBCFW_DATA/lsp or ../shared/data/lsp (the first training images).
 */
import { parseArgs } from 'node:util';
import { Rng } from '../../src/core/rng.js';
import { loadLspJoints, lspExamples, lspReferenceScale, meanOffsets } from '../../src/data/lsp.js';
import { dataPath } from '../../src/data/paths.js';
import { lspTree, LSP_JOINT_COUNT } from '../../src/models/pose-eval.js';
import { assignPoseTypes, poseTypeAnchors } from '../../src/models/pose-types.js';
import { PoseModel, type PoseInput, type PoseLabel } from '../../src/models/pose.js';
import { scalesOption } from '../../src/tasks/lsp.js';

const { values } = parseArgs({
  options: {
    images: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    types: { type: 'string', default: '1,3,6' },
    scales: { type: 'string', multiple: true, default: ['1', '1,0.8,1.25'] },
  },
});
const images = Number(values.images);
const rounds = Number(values.rounds);
const dir = dataPath('lsp');
const annotations = loadLspJoints(dir);
const indices = Array.from({ length: images }, (_, k) => k);
const reference = lspReferenceScale(annotations.slice(0, 1000));

interface Config {
  name: string;
  model: PoseModel;
  xs: PoseInput[];
  ys: PoseLabel[];
  w: Float64Array;
  oracle: number[];
  filters: number[];
}

const configs: Config[] = [];
for (const scalesText of values.scales) {
  const scales = scalesOption(scalesText);
  for (const midpoints of [false, true]) {
    const tree = lspTree(midpoints);
    const examples = await lspExamples(dir, annotations, indices, { scales, midpoints: tree.midpoints, ...(scales.length > 1 ? { reference } : {}) });
    const labels = examples.map((e) => e.label);
    for (const K of values.types.split(',').map(Number)) {
      const anchors = K === 1 ? undefined : poseTypeAnchors(labels, tree.parents, K);
      const model = new PoseModel({
        parents: tree.parents,
        ...(anchors ? { typeOffsets: anchors } : { meanOffsets: meanOffsets(labels, tree.parents) }),
        ...(midpoints ? { joints: LSP_JOINT_COUNT } : {}),
        ...(scales.length > 1 ? { scales } : {}),
        threads: 1,
      });
      const ys = labels.map((y) => (anchors ? { ...y, types: assignPoseTypes(y, tree.parents, anchors) } : y));
      const rng = new Rng(7);
      const w = Float64Array.from({ length: model.dim }, () => rng.next() * 0.02 - 0.01);
      for (const j of model.quadraticIndices()) w[j] = 0.5 + rng.next();
      configs.push({ name: `K=${K}${midpoints ? ' +midpoints' : ''}, scales ${scales.join(',')}`, model, xs: examples.map((e) => e.input), ys, w, oracle: [], filters: [] });
    }
  }
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (let r = 0; r < rounds; r++) {
  for (const c of configs) {
    let t0 = performance.now();
    c.xs.forEach((x, i) => c.model.lossAugmentedDecode(c.w, x, c.ys[i]!));
    c.oracle.push((performance.now() - t0) / c.xs.length);
    t0 = performance.now();
    for (const x of c.xs) for (let l = 0; l < c.model.scales.length; l++) c.model.partScores(c.w, x, l);
    c.filters.push((performance.now() - t0) / c.xs.length);
  }
}
const base = median(configs[0]!.oracle);
const cells = (c: Config) => c.xs.reduce((a, x) => a + x.rows * x.cols + (x.levels ?? []).reduce((b, g) => b + g.rows * g.cols, 0), 0) / c.xs.length;
console.log(
  JSON.stringify({
    benchmark: 'pose-oracle',
    images,
    rounds,
    threads: 1,
    configs: configs.map((c) => ({
      config: c.name,
      parts: c.model.numParts,
      states: c.model.numStates,
      dim: c.model.dim,
      cellsPerImage: Math.round(cells(c)),
      oracleMsPerImage: +median(c.oracle).toFixed(2),
      oracleMsRange: [+Math.min(...c.oracle).toFixed(2), +Math.max(...c.oracle).toFixed(2)],
      filterMsPerImage: +median(c.filters).toFixed(2),
      ratioToFirst: +(median(c.oracle) / base).toFixed(2),
    })),
  }),
);
