import { loadTask } from './src/tasks/index.js';
import { buildModel } from './src/tasks/model-kinds.js';
import { modelProblem } from './src/engine/problem.js';
import { train } from './src/solvers/index.js';
const data = await loadTask(`libsvm:../shared/data/multiclass/${process.env.SET ?? 'dna/dna.scale'}`, {} as any);
const p = modelProblem(buildModel(data.spec), data.train);
const mp = Number(process.env.MP ?? 10);
for (let r = 0; r < 30; r++) train(p, { solver: 'bcfw', step: 'exact', sampling: process.env.S ?? 'gap', lambda: 0.01, gapThreshold: 0, threads: 1, maxPasses: mp, gapCheck: 1000 } as any);
