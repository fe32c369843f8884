import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/engine/problem.js';
import { train } from './src/solvers/index.js';
const data = await loadTask(`libsvm:../shared/data/multiclass/${process.argv[2] ?? 'dna/dna.scale'}`, {} as any);
const p = modelProblem(buildModel(data.spec), data.train);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const mp = Number(process.argv[3] ?? 0);
for (let r = 0; r < 4; r++) {
  const c0 = cpu(); const t0 = performance.now();
  const res: any = train(p, { solver: 'bcfw', step: 'exact', sampling: 'gap', lambda: 0.01, gapThreshold: 0, maxPasses: mp, threads: 1 } as any);
  console.log(res.passes, 'cpu', (cpu() - c0).toFixed(4), 'wall', ((performance.now() - t0) / 1000).toFixed(4));
}
