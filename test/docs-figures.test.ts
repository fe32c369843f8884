/**
 * Figures and numbers of the pages (issue 35): every figure a page shows exists and every file of docs/figures is
 * shown somewhere; scripts/docs-figures.ts covers the README's and the model pages' figures; and its quick-start
 * target, run as it is listed, prints the numbers the README quotes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TARGETS } from '../scripts/docs-figures.js';
import { markdownFiles } from './helpers/docs.js';
import { needsData } from './helpers/skips.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** The images a page shows: [page, path relative to the repository]. */
function shownFigures(): [string, string][] {
  return markdownFiles().flatMap((page) =>
    [...read(page).matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m): [string, string] => [page, join(dirname(page), m[1]!)]),
  );
}

describe('figures of the pages', () => {
  it('every figure a page shows exists, and every file of docs/figures is shown by some page', () => {
    const shown = shownFigures();
    expect(shown.length).toBeGreaterThan(40);
    expect(shown.filter(([, f]) => !existsSync(join(root, f))).map(([p, f]) => `${p}: ${f}`)).toEqual([]);
    const files = readdirSync(join(root, 'docs', 'figures')).filter((f) => /\.(png|svg)$/.test(f));
    const used = new Set(shown.map(([, f]) => f));
    expect(files.filter((f) => !used.has(`docs/figures/${f}`))).toEqual([]);
  });

  it('scripts/docs-figures.ts regenerates every figure of the README and the model pages, into a page that shows it', () => {
    const shown = shownFigures();
    const made = new Map(TARGETS.flatMap((t) => t.figures.map(([, to]) => [`docs/figures/${to}`, t] as const)));
    const outsideResults = shown.filter(([page]) => page === 'README.md' || page.startsWith('docs/models/'));
    expect(outsideResults.filter(([, f]) => !made.has(f)).map(([p, f]) => `${p}: ${f}`)).toEqual([]);
    for (const [figure, target] of made) expect(shown.some(([page, f]) => f === figure && target.pages.includes(page)), figure).toBe(true);
    for (const t of TARGETS) for (const page of t.pages) expect(existsSync(join(root, page)), page).toBe(true);
  });

  it('the quick-start target prints the numbers the README quotes (passes, effective passes, gap, test errors)', needsData('ocr', 'letter.data.gz'), () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-docs-figures-'));
    const r = spawnSync('npx', ['tsx', 'scripts/docs-figures.ts', '--only', 'quickstart', '--runs', dir, '--no-copy'], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [demo, train, evaluation, plot] = r.stdout.trim().split('\n').map((l) => JSON.parse(l).summary);
    expect(existsSync(plot.out)).toBe(true);
    const readme = read('README.md');
    const m = readme.match(/the demo trained in [\d.]+ s \(gap ([\d.]+), test\s+error ([\d.]+)\); the OCR command trained BCFW on the 626 words of OCR-small for (\d+) passes \((\d+) effective,[^)]*\) in [\d.]+ s until the exact duality gap fell below 0\.1 \(([\d.]+)\), with a test error of ([\d.]+)/);
    expect(m, 'the README quick-start sentence').not.toBeNull();
    const [, demoGap, demoError, passes, effective, gap, testError] = m!;
    const digits = (quoted: string) => quoted.split('.')[1]!.length;
    // each quoted figure within one unit of its last digit of the measured one
    expect(Math.abs(demo.gap - Number(demoGap))).toBeLessThanOrEqual(10 ** -digits(demoGap!));
    expect(Math.abs(demo.testError - Number(demoError))).toBeLessThanOrEqual(10 ** -digits(demoError!));
    expect(train.passes).toBe(Number(passes));
    expect(train.effectivePasses).toBe(Number(effective));
    expect(Math.abs(train.gap - Number(gap))).toBeLessThanOrEqual(10 ** -digits(gap!));
    expect(Math.abs(train.testError - Number(testError))).toBeLessThanOrEqual(10 ** -digits(testError!));
    expect(evaluation.testError).toBe(train.testError);
  }, 120_000);
});
