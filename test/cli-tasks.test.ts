// Every cell of the task table (docs/tasks.md): the eight model kinds against train, eval, gap, path, predict,
// --solver/--sampling/--cache and --checkpoint/--resume, run through the CLI on the tiny data sets of
// test/helpers/tiny-data.ts, with the numbers checked against each other (the gap of eval and gap against
// the certificate of training, a resumed run against an uninterrupted one).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel } from '../src/tasks/model.js';
import { loadPath } from '../src/path/path-file.js';
import { cli } from './helpers/capture.js';
import { writeTinyConll, writeTinyGraph, writeTinyHansards, writeTinyHorse, writeTinyLibsvm, writeTinyLsp, writeTinyMultilabel, writeTinyOcr } from './helpers/tiny-data.js';

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-cells-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const svm = writeTinyLibsvm(dir);
const graphs = writeTinyGraph(dir);
const multilabel = writeTinyMultilabel(dir);

interface Cell {
  kind: string;
  data: () => Promise<string>;
  /** Extra arguments of train (the test set, a small lambda for a quick gap). */
  train: string[];
  /** The task metric that train, eval and predict report. */
  metric: string;
  /** Predictions are images (into --out-dir) rather than text. */
  images?: boolean;
}

const CELLS: Cell[] = [
  { kind: 'chain', data: async () => writeTinyOcr(dir), train: ['--split', 'fold:1'], metric: 'testError' },
  { kind: 'multiclass', data: async () => svm.train, train: ['--test', svm.test], metric: 'accuracy' },
  { kind: 'sparse-chain', data: async () => writeTinyConll(dir), train: ['--min-frequency', '1'], metric: 'f1' },
  { kind: 'segmentation', data: () => writeTinyHorse(join(dir, 'horse')), train: [], metric: 'testError', images: true },
  { kind: 'pose', data: () => writeTinyLsp(dir), train: ['--split', 'full', '--filter-size', '3'], metric: 'pcp', images: true },
  { kind: 'matching', data: async () => writeTinyHansards(dir), train: ['--folds', '5', '--fold', '1'], metric: 'aer' },
  { kind: 'graph', data: async () => graphs.train, train: ['--test', graphs.test], metric: 'accuracy' },
  { kind: 'multilabel', data: async () => multilabel.train, train: ['--test', multilabel.test, '--label-graph', 'full'], metric: 'microF1' },
];

const ok = (r: { code: number; stderr: string }) => expect(r.code, r.stderr).toBe(0);

describe.each(CELLS)('$kind', (cell) => {
  it('train (bcpfw, gap sampling, cache, checkpoint), resume, eval, gap, path and predict', async () => {
    const data = await cell.data();
    const at = (name: string) => join(dir, `${cell.kind}-${name}`);
    const switches = ['--lambda', '0.1', '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--cache-size', '5', '--gap-check', '2', '--gap-threshold', '0', '--seed', '3'];
    // One run of 6 passes, and the same run stopped at 2 passes then resumed from its checkpoint.
    const full = await cli('train', data, ...cell.train, ...switches, '--max-passes', '6', '--out', at('full.gbm'), '--json', '--quiet');
    ok(full);
    const first = await cli('train', data, ...cell.train, ...switches, '--max-passes', '2', '--checkpoint', at('ck.gbc'), '--json', '--quiet');
    ok(first);
    const resumed = await cli('train', data, ...cell.train, ...switches, '--max-passes', '6', '--resume', at('ck.gbc'), '--checkpoint', at('ck.gbc'), '--out', at('resumed.gbm'), '--json', '--quiet');
    ok(resumed);
    const j = full.json!;
    expect(j.solver).toBe('bcpfw');
    expect(j.sampling).toBe('gap');
    expect(j.gapIsExact).toBe(true);
    expect(typeof j[cell.metric]).toBe('number');
    for (const key of ['passes', 'primal', 'dual', 'gap', cell.metric]) expect(resumed.json![key], key).toBe(j[key]);
    expect(readFileSync(at('resumed.gbm')).subarray(-12).equals(readFileSync(at('full.gbm')).subarray(-12))).toBe(true); // the same weights
    const model = loadModel(at('full.gbm'));
    expect(model.spec.kind).toBe(cell.kind);

    // eval on the training part certifies the same gap; on the test part it reports the task's metric.
    // (Options that shape a new model, --min-frequency, --filter-size and --label-graph, do not apply to a trained one.)
    const shaping = ['--min-frequency', '--filter-size', '--label-graph'];
    const evalArgs = cell.train.filter((a, k, all) => !shaping.includes(a) && !shaping.includes(all[k - 1]!));
    // (--test names the test part: the training part is evaluated without it, which is refused as having no effect.)
    const trainArgs = evalArgs.filter((a, k, all) => a !== '--test' && all[k - 1] !== '--test');
    const onTrain = await cli('eval', at('full.gbm'), data, ...trainArgs, '--part', 'train', '--json');
    ok(onTrain);
    expect(onTrain.json!.gap as number).toBeCloseTo(j.gap as number, 9);
    const onTest = await cli('eval', at('full.gbm'), data, ...evalArgs, '--json');
    ok(onTest);
    expect(onTest.json!.part).toBe('test');
    expect(onTest.json![cell.metric]).toBe(j[cell.metric]);

    // gap: the exact gap of the saved model, equal to training's certificate.
    const gap = await cli('gap', at('full.gbm'), data, ...trainArgs, '--json');
    ok(gap);
    expect(gap.json!.gap as number).toBeCloseTo(j.gap as number, 9);

    // path: an epsilon-approximate path, stored and queried at a breakpoint.
    const p = await cli('path', data, ...cell.train, '--epsilon', '0.5', '--min-lambda', '0.05', '--out', at('path.gbp'), '--json', '--quiet');
    ok(p);
    const stored = loadPath(at('path.gbp'));
    expect(stored.spec.kind).toBe(cell.kind);
    expect(stored.breakpoints.length).toBeGreaterThan(0);
    const lambda = stored.breakpoints[0]!.lambda;
    ok(await cli('eval', at('path.gbp'), data, ...evalArgs, '--lambda', String(lambda), '--json'));

    // predict: the task's predictions of the test part, and the same metric.
    const out = at(cell.images ? 'predictions' : 'predictions.txt');
    const pr = await cli('predict', at('full.gbm'), data, ...evalArgs, cell.images ? '--out-dir' : '--out', out, '--json', '--quiet');
    ok(pr);
    expect(pr.json![cell.metric]).toBe(j[cell.metric]);
    if (cell.images) expect(readdirSync(out).filter((f) => f.endsWith('.png')).length).toBe(pr.json!.n);
    else expect(readFileSync(out, 'utf8').trimEnd().split('\n').length).toBeGreaterThanOrEqual(pr.json!.n as number);
    expect(existsSync(at('ck.gbc'))).toBe(true);
  }, 60_000);
});
