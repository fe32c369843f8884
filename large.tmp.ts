import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/engine/problem.js';
import { train } from './src/solvers/index.js';
const data = await loadTask('ocr:../shared/data/ocr/letter.data.gz', { split: 'large' } as any);
const p = modelProblem(buildModel(data.spec), data.train);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const cfgs: any[] = JSON.parse(process.env.CFGS ?? '[{},{"sampling":"gap"},{"step":"pairwise","sampling":"gap","cache":true}]');
for (let rep = 0; rep < 2; rep++) for (const c of cfgs) {
  const go = (mp: number) => { const c0 = cpu(); const r: any = train(p, { solver: 'bcfw', lambda: 1e-3, gapThreshold: 0, gapCheck: 1000, threads: 1, maxPasses: mp, ...c } as any); return [cpu() - c0, r.passes]; };
  const [a, pa] = go(1), [b, pb] = go(6);
  console.log(JSON.stringify(c), 'steps/s', Math.round((pb - pa) * p.n / (b - a)), 'n', p.n, 'passes', pa, pb);
}
