/**
 * `graph:` reproduces `horse:`: a prepared horse folder converted by scripts/graphs/horse-to-graph.ts trains the same
 * model (two labels, Potts weights with positivity, the class-normalised area-weighted loss, exact cuts), so the
 * same solver settings give the same objective values and the same test error.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataPath } from '../src/data/paths.js';
import { horseToGraph } from '../scripts/graphs/horse-to-graph.js';
import { cli } from './helpers/capture.js';
import { needsData } from './helpers/skips.js';

describe('graph: on converted horses', needsData('weizmann_horse'), () => {
  it('gives horse:\'s primal, dual and test error (BCFW, 12 train / 12 test images)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-horse-graph-'));
    const prepared = join(dir, 'horse');
    const p = await cli('prepare-horse', dataPath('weizmann_horse'), '--out', prepared, '--limit', '24', '--train-size', '12', '--superpixels', '60', '--colour-words', '16', '--gradient-words', '16', '--json', '--quiet');
    expect(p.code, p.stderr).toBe(0);
    expect(await horseToGraph(prepared, join(dir, 'graph'))).toEqual({ train: 12, test: 12 });
    const common = ['--lambda', '1', '--max-passes', '30', '--gap-threshold', '0.001', '--json', '--quiet'];
    const horse = await cli('train', `horse:${prepared}`, '--batch', '1', ...common);
    const graph = await cli('train', `graph:${join(dir, 'graph', 'train.jsonl')}`, '--test', `graph:${join(dir, 'graph', 'test.jsonl')}`, '--loss', 'balanced', ...common);
    expect(horse.code, horse.stderr).toBe(0);
    expect(graph.code, graph.stderr).toBe(0);
    const [h, g] = [horse.json!, graph.json!];
    expect(g.gapIsExact).toBe(true);
    expect(Object.keys(g.inference as object)).toEqual(['cut']);
    expect(g.passes).toBe(h.passes);
    for (const key of ['primal', 'dual', 'testError'] as const) expect(g[key] as number, key).toBeCloseTo(h[key] as number, 6);
  }, 180_000);
});
