import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/engine/problem.js';
import { train } from './src/solvers/index.js';
import { setThreads } from './src/native/threads.js';
const data = await loadTask('conll:../shared/data/conll2000', {} as any);
const p = modelProblem(buildModel(data.spec), data.train);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const cfgs: any[] = [{ batch: 1, threads: 1 }, { batch: 8, threads: 2 }, { batch: 1, threads: 1, native: false }];
for (const c of cfgs) {
  setThreads(c.threads);
  const t0 = performance.now(), c0 = cpu();
  const r: any = train(p, { solver: 'bcfw', step: 'pairwise', sampling: 'gap', lambda: 1 / p.n, gapThreshold: 0, gapCheck: 1000, maxPasses: 3, ...c } as any);
  const wall = (performance.now() - t0) / 1000;
  console.log(JSON.stringify(c), 'native', r.native, 'batch', r.batch, 'passes', r.passes, 'wall', wall.toFixed(1), 'cpu', (cpu() - c0).toFixed(1), 'oracle/s(wall)', Math.round((r.oracleCalls - p.n) / wall), 'gap', r.gap?.toExponential(3));
}
