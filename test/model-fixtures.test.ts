// Model files of every kind written by the code before the one-header schema (test/fixtures/models, see its
// README) still load, and predict exactly what that code predicted with them; saved again in today's format they
// predict the same.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadLspJoints, lspExamples } from '../src/data/lsp.js';
import { loadModel, saveModel, type TrainedModel } from '../src/tasks/model.js';
import { readModelFile } from '../src/io/model-file.js';
import { loadPath } from '../src/path/path-file.js';
import { pathWeights } from '../src/path/regpath.js';
import { loadTask } from '../src/tasks/index.js';
import { buildModel } from '../src/tasks/model-kinds.js';
import { cli } from './helpers/capture.js';
import { writeTinyConll, writeTinyHorse, writeTinyLibsvm, writeTinyLsp } from './helpers/tiny-data.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/models/', import.meta.url));
const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as Record<string, { file: string; predictions: unknown[]; lambda?: number; pairs?: string[] }>;
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-fixtures-'));
const svm = writeTinyLibsvm(dir);
const data: Record<string, () => Promise<string>> = {
  chain: async () => 'synthetic:',
  path: async () => 'synthetic:',
  multiclass: async () => svm.train,
  'sparse-chain': async () => writeTinyConll(dir),
  segmentation: () => writeTinyHorse(join(dir, 'a')),
  'segmentation-legacy': () => writeTinyHorse(join(dir, 'b')),
};
const plain = (y: unknown) => (ArrayBuffer.isView(y) ? Array.from(y as Int32Array) : y);

/** Predictions of a model on the test part of its tiny data set (encoded for the model, as eval and predict do). */
async function testPredictions(m: TrainedModel, spec: string): Promise<unknown[]> {
  const set = (await loadTask(spec, { model: m, parts: ['test'], ...(spec === svm.train ? { test: svm.test } : {}) })).test!;
  const model = buildModel(m.spec);
  return Array.from({ length: set.length }, (_, i) => plain(model.decode(m.w, set.input(i))));
}

describe('model files of the earlier formats (test/fixtures/models)', () => {
  it.each(['chain', 'multiclass', 'sparse-chain', 'segmentation', 'segmentation-legacy'])('%s: loads, predicts as the code that wrote it, and again after saving in the current format', async (name) => {
    const e = expected[name]!;
    const m = loadModel(join(FIXTURES, e.file));
    const spec = await data[name]!();
    expect(await testPredictions(m, spec)).toEqual(e.predictions);
    const again = join(dir, `${name}-v2.gbm`);
    saveModel(again, m);
    expect(readModelFile(again).meta).toMatchObject({ format: 'gapbcfw-model', version: 2, task: m.task });
    expect(await testPredictions(loadModel(again), spec)).toEqual(e.predictions);
  });

  it('pose (gapbcfw-pose version 1, no lambda stored): the same joint cells on the tiny LSP images', async () => {
    const e = expected.pose!;
    const m = loadModel(join(FIXTURES, e.file));
    expect([m.task, m.spec.kind, m.lambda]).toEqual(['lsp', 'pose', undefined]);
    const lsp = (await writeTinyLsp(dir, 12)).slice('lsp:'.length);
    const { sbin, scale } = m.fields.meta as { sbin: number; scale: number };
    const examples = await lspExamples(lsp, loadLspJoints(lsp), Array.from({ length: 12 }, (_, k) => k), { sbin, scale });
    const model = buildModel(m.spec);
    const predict = (w: Float64Array) => examples.map((x) => {
      const y = model.decode(w, x.input) as { x: Int32Array; y: Int32Array };
      return { x: Array.from(y.x), y: Array.from(y.y) };
    });
    expect(predict(m.w)).toEqual(e.predictions);
    // eval and predict read it through the lsp task (no baseline: the first format kept no mean pose)
    const r = await cli('eval', join(FIXTURES, e.file), `lsp:${lsp}`, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json!.n).toBe(6);
    expect(r.json!.meanPosePcp).toBeUndefined();
  });

  it('alignment (gapbcfw-alignment-model, its Dice corpus inside): the same links for new pairs', async () => {
    const e = expected.alignment!;
    const pairs = join(dir, 'pairs.txt');
    writeFileSync(pairs, `${e.pairs!.join('\n')}\n`);
    const p = await cli('align', join(FIXTURES, e.file), pairs);
    expect(p.code, p.stderr).toBe(0);
    const links = p.stdout.trim().split('\n').map((line) => line.split(' ').filter((l) => l !== ''));
    const want = (e.predictions as number[][]).map((a) => a.flatMap((k, j) => (k < 0 ? [] : [`${j}-${k}`])));
    expect(links).toEqual(want);
  });

  it('path files (gapbcfw-path without a task): the same w at a breakpoint', async () => {
    const e = expected.path!;
    const p = loadPath(join(FIXTURES, e.file));
    expect(p.task).toBe('ocr'); // inferred from the chain spec
    const w = pathWeights(p, e.lambda!);
    const set = (await loadTask('synthetic:')).test!;
    const model = buildModel(p.spec);
    expect(Array.from({ length: set.length }, (_, i) => plain(model.decode(w, set.input(i))))).toEqual(e.predictions);
    const r = await cli('eval', join(FIXTURES, e.file), 'synthetic:', '--lambda', String(e.lambda), '--json');
    expect(r.code, r.stderr).toBe(0);
  });
});
