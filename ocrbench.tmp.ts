import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/core/problem.js';
import { train } from './src/solvers/index.js';
const data = await loadTask('ocr:../shared/data/ocr/letter.data.gz', { split: process.argv[2] ?? 'small' } as any);
const p = modelProblem(buildModel(data.spec), data.train);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
for (const native of (process.env.ONLY ? [true] : [true, false, true])) {
  const c0 = cpu();
  const r: any = train(p, { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: true, lambda: 0.01, gapThreshold: 0.01, threads: 1, native, maxPasses: Number(process.argv[3] ?? 1000) } as any);
  const c = cpu() - c0;
  const steps = r.passes * p.n;
  console.log(`native ${r.native} passes ${r.passes} gap ${r.gap} cpu ${c.toFixed(2)} s  ~${(c / steps * 1e6).toFixed(1)} us/step`);
}
