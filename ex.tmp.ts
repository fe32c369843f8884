import { modelProblem } from './src/engine/problem.js';
import { Rng } from './src/core/rng.js';
import { MulticlassModel } from './src/models/multiclass.js';
import { bcfw } from './src/solvers/bcfw.js';
const rng = new Rng(21); const xs: any[] = []; const ys: number[] = [];
for (let i = 0; i < 12; i++) { const y = rng.int(4); const ids: number[] = [], values: number[] = []; for (let f = 0; f < 4; f++) if (rng.next() < 0.7) { ids.push(f); values.push((f === y ? 1 : 0) + rng.next() - 0.5); } xs.push({ indices: Int32Array.from(ids), values: Float64Array.from(values), nnz: ids.length }); ys.push(y); }
const p = modelProblem(new MulticlassModel(4, 4), xs, ys);
for (const native of [true, false]) { const t0 = performance.now(); const r = bcfw(p, { lambda: 0.05, step: 'exact', sampling: 'gap', gapThreshold: 1e-8, maxPasses: 10000, seed: 4, native }); console.log(native, r.passes, r.gap, r.stopReason, (performance.now() - t0).toFixed(0), 'ms'); }
