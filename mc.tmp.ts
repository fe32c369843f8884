import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/core/problem.js';
import { train } from './src/solvers/index.js';
const set = process.argv[2] ?? 'dna/dna.scale';
const data = await loadTask(`libsvm:../shared/data/multiclass/${set}`, {} as any);
const p = modelProblem(buildModel(data.spec), data.train);
const lam = process.argv[3] === '1/n' ? 1 / p.n : Number(process.argv[3] ?? 0.01);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const cfgs: any[] = [{ step: 'exact', sampling: 'perm' }, { step: 'exact', sampling: 'gap' }, { step: 'exact' }, { step: 'fw' }, { step: 'pairwise', sampling: 'gap', cache: true }];
for (const c of cfgs) for (let rep = 0; rep < 2; rep++) {
  const c0 = cpu();
  const r: any = train(p, { solver: 'bcfw', lambda: lam, gapThreshold: Number(process.argv[4] ?? 1e-3), threads: 1, maxPasses: 100000, ...c } as any);
  console.log(JSON.stringify(c), `passes ${r.passes} eff ${r.effectivePasses.toFixed(1)} primal ${r.primal.toFixed(6)} gap ${r.gap.toExponential(2)} cpu ${(cpu() - c0).toFixed(3)} s native ${r.native}`);
}
