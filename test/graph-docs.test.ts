/**
 * Every command of docs/models/graphs.md and docs/models/multilabel.md runs as written and does what the page says
 * (the README's graph and multi-label commands are among them): the data conversion lines (python3, node) in a
 * scratch folder with the pages' relative paths pointed at the shared data and the repository's scripts, the
 * gapbcfw lines through the CLI with the data names of the pages mapped as test/helpers/docs.ts does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dataRoot } from '../src/data/paths.js';
import { cli } from './helpers/capture.js';
import { documentedCommands, runnable } from './helpers/docs.js';
import { needsData } from './helpers/skips.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The shell lines of a page that are not gapbcfw commands (data conversion), comments dropped. */
function shellLines(file: string): string[] {
  const out: string[] = [];
  for (const block of readFileSync(join(root, file), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split('\n')) if (/^(python3|node) /.test(line)) out.push(line.replace(/\s+#.*$/, ''));
  }
  return out;
}

/** Runs a conversion line of a page in `dir`: `../shared/data/` is the data root, `scripts/` the repository's. */
function runShell(line: string, dir: string): void {
  const command = line.replace('../shared/data/', `${dataRoot()}/`).replace(/(^|\s)scripts\//, `$1${root}/scripts/`);
  const r = spawnSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8' });
  expect(r.status, `${line}\n${r.stderr}`).toBe(0);
}

/** The gapbcfw commands of a page, each runnable in dir, by their first words. */
function pageCommands(file: string, dir: string): { line: string; argv: string[] }[] {
  return documentedCommands(file).map((c) => ({ line: c.line, argv: runnable(c.argv, dir) }));
}

/** Runs the commands one after the other with --json --quiet; their JSON summaries. */
async function runAll(commands: { line: string; argv: string[] }[]): Promise<Record<string, unknown>[]> {
  const results: Record<string, unknown>[] = [];
  for (const c of commands) {
    const r = await cli(...c.argv, '--json', '--quiet');
    expect(r.code, `${c.line}\n${r.stderr}`).toBe(0);
    results.push(r.json!);
  }
  return results;
}

/** The gapbcfw commands of the README's graphs and multi-label section. */
function readmeSection(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Graphs and multi-label data'), readme.indexOf('## Models'));
  return documentedCommands('README.md').filter((c) => section.includes(c.line)).map((c) => c.line);
}

describe('docs/models/graphs.md runs as written', needsData('graphs', 'ud_english_lines', 'convert.py'), () => {
  it('converts the treebank, trains on trees (exact), evaluates, predicts, and on loopy graphs reports LP and expansion honestly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-graph-docs-'));
    const page = 'docs/models/graphs.md';
    const lines = shellLines(page);
    expect(lines).toHaveLength(3);
    for (const line of lines) runShell(line, dir);
    const commands = pageCommands(page, dir);
    expect(commands.map((c) => c.argv[0])).toEqual(['train', 'eval', 'predict', 'train', 'train']);
    const results = await runAll(commands);
    const [tree, evaluated, predicted, lp, expansion] = results;
    // Trees: exact dynamic programming, an exact certificate.
    expect(tree!.gapIsExact).toBe(true);
    expect(Object.keys(tree!.inference as object)).toEqual(['tree']);
    expect(tree!.accuracy as number).toBeGreaterThan(0.85);
    expect(evaluated!.accuracy).toBe(tree!.accuracy);
    expect(evaluated!.classNormalisedError as number).toBeGreaterThan(0);
    expect(predicted!.n).toBe(1121);
    expect(readFileSync(join(dir, 'pos.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1121);
    // Loopy graphs, full tables: the LP routine; its certificate status and, when approximate, the bound.
    const lpCalls = (lp!.inference as Record<string, { calls: number; exact: number }>).lp!;
    expect(lpCalls.calls).toBeGreaterThan(0);
    expect(lp!.gapIsExact).toBe(lp!.oracle === 'exact');
    if (lp!.oracle === 'approximate') expect(lp!.gapUpperBound as number).toBeGreaterThanOrEqual(lp!.gap as number);
    // Potts tables with alpha-expansion: approximate, with no bound.
    expect(expansion!.oracle).toBe('approximate');
    expect(expansion!.gapIsExact).toBe(false);
    expect(expansion!.gapUpperBound).toBeUndefined();
    // The README's graph command is the page's first.
    expect(readmeSection()).toContain(commands[0]!.line);
  }, 600_000);
});

describe('docs/models/multilabel.md runs as written', needsData('multilabel', 'yeast', 'yeast_train.svm'), () => {
  it('trains yeast on the Chow-Liu tree, evaluates, predicts, and scene on the full graph exactly, with and without positivity', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-multilabel-docs-'));
    const page = 'docs/models/multilabel.md';
    expect(shellLines(page)).toEqual([]);
    const commands = pageCommands(page, dir);
    expect(commands.map((c) => c.argv[0])).toEqual(['train', 'eval', 'predict', 'train', 'train']);
    const results = await runAll(commands);
    const [yeast, evaluated, predicted, full, attractive] = results;
    expect(yeast!.gapIsExact).toBe(true);
    expect(Object.keys(yeast!.inference as object)).toEqual(['tree']);
    expect(yeast!.hammingLoss as number).toBeLessThan(0.23); // all-negative predictions: 0.30 on yeast's test set
    expect(evaluated!.hammingLoss).toBe(yeast!.hammingLoss);
    expect(evaluated!.microF1).toBe(yeast!.microF1);
    expect(predicted!.n).toBe(917);
    expect(readFileSync(join(dir, 'yeast-labels.txt'), 'utf8').trim().split('\n')).toHaveLength(917);
    expect(Object.keys(full!.inference as object)).toContain('exhaustive');
    expect(full!.gapIsExact).toBe(true);
    expect(Object.keys(attractive!.inference as object)).toEqual(['cut']);
    expect(attractive!.gapIsExact).toBe(true);
    expect(readmeSection()).toContain(commands[0]!.line);
  }, 600_000);
});
