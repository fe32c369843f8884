// The progress line of `gapbcfw train` on a terminal (src/cli/progress.ts): it fits the width, always shows the last
// exact gap and the current estimate, and counts passes as the --max-passes cap does (cache hits are free).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProgressPrinter, progressLine } from '../src/cli/progress.js';
import { bcfw } from '../src/solvers/bcfw.js';
import type { ProgressEvent } from '../src/solvers/common.js';
import { tinyChain } from './helpers/tiny.js';

/** A terminal `columns` wide that keeps what is drawn on it (the text after the last carriage return of each write). */
function terminal(columns: number) {
  const lines: string[] = [];
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns });
  stream.on('data', (b: Buffer) => {
    const text = String(b);
    if (text.startsWith('\r\x1b[2K')) lines.push(text.slice(5));
  });
  return { stream, lines };
}

const t = tinyChain(3, { n: 30 });
const MAX = 20;
// BCPFW with gap sampling and a cache: the cache answers steps, so the solver's passes run past the cap.
const cached = bcfw(t.problem, { lambda: 0.01, step: 'pairwise', sampling: 'gap', cache: true, maxPasses: MAX, gapCheck: 5, gapThreshold: 0, seed: 2 });
const plain = bcfw(t.problem, { lambda: 0.01, maxPasses: MAX, gapCheck: 5, gapThreshold: 0, seed: 2, batch: 1 });

/** The number after `label ` in a line. */
const figure = (line: string, label: string) => Number(new RegExp(`(?:^|\\s)${label} (-?[0-9.e+-]+)`).exec(line)?.[1]);

describe('the progress line', () => {
  it('the cached run passes the cap in solver passes; the line counts oracle passes against it (no "pass 28/20")', () => {
    expect(cached.trace.at(-1)!.pass).toBeGreaterThan(MAX); // so that the check below can fail
    const { stream, lines } = terminal(160);
    const printer = new ProgressPrinter(stream, MAX, false, t.problem.n);
    for (const e of cached.trace) printer.onProgress(e);
    for (const line of lines) {
      const [done, cap] = /pass (\d+)\/(\d+)/.exec(line)!.slice(1).map(Number);
      expect(cap).toBe(MAX);
      expect(done).toBeLessThanOrEqual(MAX);
    }
    expect(lines.at(-1)).toMatch(/passes with cache hits/);
  });

  it.each([50, 80, 100, 200])('fits %i columns and always shows the last exact gap and the estimate', (columns) => {
    for (const run of [cached, plain]) {
      const { stream, lines } = terminal(columns);
      const printer = new ProgressPrinter(stream, MAX, false, t.problem.n);
      let lastExact: ProgressEvent | undefined;
      run.trace.forEach((e, k) => {
        printer.onProgress(e);
        if (e.gapIsExact) lastExact = e;
        const line = lines[k]!;
        expect(line.length).toBeLessThanOrEqual(columns - 1);
        if (lastExact) expect(figure(line, 'gap')).toBeCloseTo(lastExact.gap!, 3 - Math.ceil(Math.log10(Math.abs(lastExact.gap!) + 1e-300)));
        if (typeof e.gapEstimate === 'number') expect(Math.abs(figure(line, 'est') - e.gapEstimate)).toBeLessThanOrEqual(Math.abs(e.gapEstimate) * 1e-3);
      });
      if (columns >= 100) expect(lines.at(-1)).toMatch(/^\[[#.]{10,24}\] /);
    }
    // Averaging keeps no estimate of its own iterate: plain BCFW's line then shows the exact gap alone.
    expect(plain.trace.some((e) => typeof e.gapEstimate === 'number')).toBe(false);
    expect(cached.trace.some((e) => typeof e.gapEstimate === 'number')).toBe(true);
  });

  it('a terminal too narrow for everything keeps the passes, the gap and the estimate first', () => {
    const e = cached.trace.findLast((x) => !x.gapIsExact)!;
    const exact = cached.trace.findLast((x) => x.gapIsExact)!;
    const line = progressLine(e, exact, MAX, t.problem.n, 48);
    expect(line.length).toBeLessThanOrEqual(47);
    expect(line).toMatch(/^pass \d+\/20 {2}gap \S+ {2}est \S+~/);
  });
});
