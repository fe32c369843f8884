/**
 * Oracle cost of the graph-labelling routines (issue 32): milliseconds per example of each MRF inference routine
 * (native/graph/: tree DP, binary cut, exhaustive search, alpha-expansion, MPLP) on the loss-augmented potentials of
 * a trained `graph:` model over a `graph:` file, the routines timed round-robin (one pass over the examples per
 * routine per round, so that load drift hits them alike), the median over rounds of the mean per example. A routine
 * is timed on the examples it applies to (`applied`); for each, how many calls were proven exact, and the mean score
 * shortfall against the best score any exact routine found for that example (0 for exact calls).
 *
 *   npx tsx scripts/bench/graph-oracle.ts --model MODEL.gbm --data graph:FILE.jsonl [--routines tree,cut,exhaustive,expansion,lp] [--rounds 3]
 *
 * Prints one JSON object.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { loadModel } from '../../src/tasks/model.js';
import { buildModel } from '../../src/tasks/model-kinds.js';
import { loadTask } from '../../src/tasks/index.js';
import { GraphModel, graphLossWeights, type GraphInput, type GraphLabel } from '../../src/models/graph.js';
import { GRAPH_ROUTINES, inferGraph, type GraphPotentials, type GraphRoutine } from '../../src/native/graph.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    data: { type: 'string' },
    routines: { type: 'string', default: GRAPH_ROUTINES.join(',') },
    rounds: { type: 'string', default: '3' },
  },
});
if (!values.model || !values.data) throw new Error('usage: graph-oracle.ts --model MODEL.gbm --data graph:FILE.jsonl [--routines ...] [--rounds N]');
const trained = loadModel(values.model);
const model = buildModel(trained.spec) as unknown as GraphModel;
const data = await loadTask(values.data, { model: trained, parts: ['train'] });
const routines = values.routines.split(',') as GraphRoutine[];
const rounds = Number(values.rounds);

// The loss-augmented potentials of every example at the trained w (what the oracle maximises in training).
const problems: GraphPotentials[] = [];
for (let i = 0; i < data.train.length; i++) {
  const x = data.train.input(i) as GraphInput;
  const y = data.train.label(i) as GraphLabel;
  const p = model.potentials(trained.w, x);
  const a = graphLossWeights(y, model.numLabels, model.lossKind);
  for (let v = 0; v < x.numNodes; v++) for (let k = 0; k < model.numLabels; k++) if (k !== y[v]) p.unary[v * model.numLabels + k]! += a[v]!;
  problems.push(p);
}
const n = problems.length;
const labels = problems.map((p) => new Int32Array(p.unary.length / p.numLabels));
const stats = new Map<GraphRoutine, { ms: number[]; applied: number; exact: number; scores: Float64Array }>();
for (const r of routines) stats.set(r, { ms: [], applied: 0, exact: 0, scores: new Float64Array(n).fill(NaN) });
for (let round = 0; round < rounds; round++) {
  for (const r of routines) {
    const s = stats.get(r)!;
    let ms = 0;
    let applied = 0;
    let exact = 0;
    problems.forEach((p, i) => {
      const t0 = performance.now();
      const got = inferGraph(p, labels[i]!, { routine: r });
      const t = performance.now() - t0;
      if (got.routine !== r) return;
      ms += t;
      applied++;
      if (got.exact) exact++;
      s.scores[i] = got.score;
    });
    s.ms.push(applied > 0 ? ms / applied : NaN);
    s.applied = applied;
    s.exact = exact;
  }
}
// The best score an exact call found per example (the optimum), for the approximate routines' shortfall.
const best = new Float64Array(n).fill(NaN);
for (const [r, s] of stats) {
  if (r === 'expansion') continue;
  for (let i = 0; i < n; i++) if (!Number.isNaN(s.scores[i]!) && (Number.isNaN(best[i]!) || s.scores[i]! > best[i]!)) best[i] = s.scores[i]!;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const out = routines.map((r) => {
  const s = stats.get(r)!;
  let shortfall = 0;
  let compared = 0;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(s.scores[i]!) || Number.isNaN(best[i]!)) continue;
    shortfall += best[i]! - s.scores[i]!;
    compared++;
  }
  return { routine: r, applied: s.applied, exact: s.exact, msPerExample: +median(s.ms).toFixed(4), meanShortfall: compared > 0 ? shortfall / compared : null };
});
console.log(JSON.stringify({ model: values.model, data: values.data, examples: n, nodes: problems.reduce((t, p) => t + p.unary.length / p.numLabels, 0), rounds, routines: out }));
