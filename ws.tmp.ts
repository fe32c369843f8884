import { tinyChain } from './test/helpers/tiny.js';
import { bcfw } from './src/solvers/bcfw.js';
import { createSolver } from './src/solvers/index.js';
const t = tinyChain(55, { n: 8, K: 3, D: 3, maxT: 4 });
const cache = { adaptive: false };
for (const seed of [1, 2, 3, 4, 5]) {
  const first = createSolver(t.problem, { lambda: 0.2, step: 'pairwise', cache, sampling: 'gap', gapThreshold: 1e-3, maxPasses: 10000, seed } as any);
  while (first.runPass());
  const from = first.checkpoint();
  const common: any = { lambda: 0.05, step: 'pairwise', cache, sampling: 'gap', gapThreshold: 1e-3, maxPasses: 10000, seed };
  const cold = bcfw(t.problem, common);
  const warm = bcfw(t.problem, { ...common, warmStart: { from, mode: 'keep-primal' } });
  console.log(seed, 'cold', cold.oracleCalls, 'warm', warm.oracleCalls);
}
