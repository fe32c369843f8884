import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/engine/problem.js';
import { train } from './src/solvers/index.js';
const data = await loadTask(`libsvm:../shared/data/multiclass/${process.argv[2] ?? 'dna/dna.scale'}`, {} as any);
const p = modelProblem(buildModel(data.spec), data.train);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
for (let r = 0; r < Number(process.argv[3] ?? 20); r++) {
  const c0 = cpu();
  const res: any = train(p, { solver: 'bcfw', step: 'exact', sampling: 'gap', lambda: 0.01, gapThreshold: 0, maxPasses: 33, threads: 1 } as any);
  if (r % 5 === 0) console.log(res.passes, (cpu() - c0).toFixed(4));
}
