import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/engine/problem.js';
import { bcfw } from './src/solvers/bcfw.js';
const task = await loadTask('synthetic:');
const p = modelProblem(buildModel(task.spec), task.train);
const cfgs: any[] = [{}, { sampling: 'gap', averaging: false }, { sampling: 'perm', cache: true }, { step: 'pairwise', sampling: 'gap', cache: true }, { step: 'away', cache: true }, { step: 'hybrid', sampling: 'gap' }, { step: 'hybrid', cache: { maxSize: 2 } }, { lineSearch: false }];
for (const c of cfgs) {
  const o = { lambda: 0.01, maxPasses: 30, gapCheck: 5, gapThreshold: 0, seed: 11, batch: 1, ...c };
  let t0 = performance.now();
  const a = bcfw(p, { ...o, native: false });
  const ta = performance.now() - t0; t0 = performance.now();
  const b = bcfw(p, o);
  const tb = performance.now() - t0;
  const same = JSON.stringify(a.trace.map(({ seconds, ...e }) => e)) === JSON.stringify(b.trace.map(({ seconds, ...e }) => e)) && a.w.every((x, j) => Object.is(x, b.w[j]));
  console.log(JSON.stringify(c), 'native', b.native, 'same', same, 'ts', ta.toFixed(0), 'ms native', tb.toFixed(0), 'ms', a.gap, b.gap);
}
