/**
 * Issue 21: the pose model with types (mixtures of parts), midpoints and a pyramid. The one-type, one-level model
 * is the model of commit 9a1af41: it reproduces that code's traces and reads its model files (test/fixtures/pose).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lspTraceRuns, poseTraceRuns } from './helpers/pose-traces.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/pose/', import.meta.url));
const k1 = JSON.parse(readFileSync(join(FIXTURES, 'k1-traces.json'), 'utf8')) as { synthetic: Record<string, unknown>; lsp: Record<string, unknown> | null };

describe('the one-type, no-midpoint, one-scale model is the model of commit 9a1af41', () => {
  it('reproduces its traces and weights on synthetic data (BCFW, BCPFW + gap sampling + cache, BCAFW)', () => {
    expect(poseTraceRuns()).toEqual(k1.synthetic);
  });

  it.skipIf(k1.lsp === null)('reproduces its `train lsp:` summaries and exact-gap checkpoints on 12 LSP-small images', async () => {
    const runs = await lspTraceRuns();
    if (runs === null) return; // no LSP data here
    expect(runs).toEqual(k1.lsp);
  }, 120_000);
});
