import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/engine/problem.js';
import { train } from './src/solvers/index.js';
const data = await loadTask('ocr:../shared/data/ocr/letter.data.gz', { split: process.env.SPLIT ?? 'small' } as any);
const p = modelProblem(buildModel(data.spec), data.train);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const lam = Number(process.env.LAM ?? 0.01);
const cfgs: any[] = JSON.parse(process.env.CFGS ?? '[{"step":"pairwise","sampling":"gap"},{"step":"pairwise","sampling":"gap","cache":true},{"step":"fw"},{"step":"fw","sampling":"gap"},{"step":"fw","sampling":"gap","cache":true}]');
for (let rep = 0; rep < 2; rep++) for (const c of cfgs) {
  const c0 = cpu();
  const r: any = train(p, { solver: 'bcfw', lambda: lam, gapThreshold: Number(process.env.GAP ?? 0.01), threads: 1, maxPasses: 100000, ...c } as any);
  const t = cpu() - c0;
  console.log(JSON.stringify(c), `passes ${r.passes} eff ${r.effectivePasses.toFixed(1)} gap ${r.gap.toExponential(2)} cpu ${t.toFixed(2)} s/effpass ${(t / r.effectivePasses * 1000).toFixed(1)}ms hits ${r.counters.cacheHits}`);
}
