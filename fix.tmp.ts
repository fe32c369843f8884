import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/engine/problem.js';
import { bcfw } from './src/solvers/bcfw.js';
const task = await loadTask('synthetic:');
const synthetic = modelProblem(buildModel(task.spec), task.train);
function bits(x: number) { const v = new DataView(new ArrayBuffer(8)); v.setFloat64(0, x); return v.getBigUint64(0).toString(16); }
const traceBits = (trace: any[]) => trace.map(({ seconds: _s, ...e }) => Object.entries(e).map(([k, v]) => [k, typeof v === 'number' ? bits(v) : v]));
const fp = (r: any) => { const h = createHash('sha256'); for (const e of traceBits(r.trace)) h.update(JSON.stringify(e)); for (const x of r.w) h.update(bits(x)); return h.digest('hex').slice(0, 32); };
const CONFIGS: Record<string, any> = {
  'bcfw uniform, averaging': {}, 'bcfw gap': { sampling: 'gap', averaging: false }, 'bcfw perm, cache': { sampling: 'perm', cache: true },
  'bcpfw gap, cache': { step: 'pairwise', sampling: 'gap', cache: true }, 'bcafw uniform, cache': { step: 'away', cache: true }, 'hybrid gap': { step: 'hybrid', sampling: 'gap' },
};
const path = 'test/fixtures/traces/sequential.json';
const f = JSON.parse(readFileSync(path, 'utf8'));
for (const [name, c] of Object.entries(CONFIGS)) {
  const o = { lambda: 0.01, maxPasses: 30, gapCheck: 5, gapThreshold: 0, seed: 11, batch: 1, ...c };
  const a = fp(bcfw(synthetic, { ...o, native: false })), b = fp(bcfw(synthetic, o));
  if (a !== b) throw new Error(name);
  console.log(name, f.runs[name], '->', a);
  f.runs[name] = a;
}
if (process.argv[2] === 'write') writeFileSync(path, JSON.stringify(f, null, 2) + '\n');
