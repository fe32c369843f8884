// Training runs in a browser (issue 34): `gapbcfw plot --html` writes a self-contained report and `gapbcfw watch`
// serves one that updates as the trace grows. Both open in a real headless chromium (Debian's, driven by
// playwright-core; no browser is downloaded): the charts render, nothing is fetched from the network, the console has
// no errors, and on the watch page a line appended to the trace appears. Skipped with the reason without chromium.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TraceFollower, reportRows, runNames } from '../src/plot/html.js';
import { cli } from './helpers/capture.js';
import { documentedCommand, runnable } from './helpers/docs.js';
import { unless } from './helpers/skips.js';

const CHROMIUM = '/usr/bin/chromium';
const CHARTS = ['gap-passes', 'gap-time', 'objectives', 'metrics', 'throughput'];
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-watch-'));
// The trace of the README's commands (ocr.jsonl there: a demo run here, quick and with test metrics at every check).
const trace = join(dir, 'ocr.jsonl');
const lines = () => readFileSync(trace, 'utf8').trim().split('\n');

beforeAll(async () => {
  const r = await cli('demo', '--trace', trace, '--eval-every', '1', '--quiet');
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the report rows', () => {
  it('name every run apart and time oracle calls per second over the last events', () => {
    const runs = [
      { method: 'bcfw', seed: 1, data: 'ocr:a', file: 'a.jsonl' },
      { method: 'bcfw', seed: 1, data: 'ocr:b', file: 'b.jsonl' },
      { method: 'bcpfw', seed: 1, data: 'ocr:a', file: 'c.jsonl' },
      { method: 'bcpfw', seed: 2, data: 'ocr:a', file: 'c.jsonl' },
    ];
    expect(runNames(runs)).toEqual(['bcfw, ocr:a', 'bcfw, ocr:b', 'bcpfw, ocr:a, seed 1', 'bcpfw, ocr:a, seed 2']);
    const events = Array.from({ length: 30 }, (_, k) => ({ pass: k + 1, effectivePasses: k + 1, oracleCalls: 100 * (k + 1), seconds: 0.5 * (k + 1), gapIsExact: (k + 1) % 10 === 0 }));
    const rows = reportRows(events, 'r');
    expect(rows.every((row) => row.run === 'r')).toBe(true);
    // At the checks (passes 10, 20, 30): 1,000 calls in 5 s since the previous check (the first: since the start).
    expect(rows.filter((row) => row.oracleCallsPerSecond !== undefined).map((row) => [row.pass, row.oracleCallsPerSecond])).toEqual([[10, 200], [20, 200], [30, 200]]);
  });

  it('a follower reads only whole new lines, starts over when the file does, and names a bad line', () => {
    const file = join(dir, 'follow.jsonl');
    const [a, b, c] = lines();
    const f = new TraceFollower(file);
    expect(f.poll()).toEqual({ reset: false, rows: [] }); // not there yet
    writeFileSync(file, `${a}\n${b!.slice(0, 20)}`);
    expect(f.poll().rows.map((r) => r.pass)).toEqual([JSON.parse(a!).pass]);
    appendFileSync(file, `${b!.slice(20)}\n`);
    expect(f.poll().rows.map((r) => r.pass)).toEqual([JSON.parse(b!).pass]);
    writeFileSync(file, `${c}\n`);
    const again = f.poll();
    expect(again.reset).toBe(true);
    expect(again.rows.map((r) => r.pass)).toEqual([JSON.parse(c!).pass]);
    appendFileSync(file, '{"pass": "x"}\n');
    expect(() => f.poll()).toThrow(/follow\.jsonl:2: 'pass' must be a finite number/);
  });
});

describe('in headless chromium', unless(existsSync(CHROMIUM), `needs chromium at ${CHROMIUM} (apt-get install chromium)`), () => {
  let context: BrowserContext;

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(mkdtempSync(join(dir, 'profile-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 120_000);
  afterAll(async () => context?.close());

  /** A page that records console errors, page errors and every request it makes. */
  async function open(url: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
    return { page, errors, requests };
  }

  /** Every chart has drawn coloured lines on its canvas (axes, grid and text are grey; the runs' lines are not). */
  async function expectCharts(page: Page): Promise<void> {
    for (const id of CHARTS) {
      const coloured = await page.locator(`#${id} canvas`).evaluate((canvas: HTMLCanvasElement) => {
        const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
        let k = 0;
        for (let p = 0; p < data.length; p += 4) if (data[p + 3]! > 0 && Math.max(data[p]!, data[p + 1]!, data[p + 2]!) - Math.min(data[p]!, data[p + 1]!, data[p + 2]!) > 60) k++;
        return k;
      });
      expect(coloured, id).toBeGreaterThan(100);
    }
  }

  it("the README's plot --html: a self-contained report whose charts render offline, with no console errors", async () => {
    const out = join(dir, 'ocr.html');
    const r = await cli(...runnable(documentedCommand('README.md', 'plot ocr.jsonl --html'), dir), '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ format: 'html', runs: 1, events: lines().length });
    const html = readFileSync(out, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href="(?!data:)/); // the renderers are inlined, no icon is fetched
    const { page, errors, requests } = await open(pathToFileURL(out).href);
    await expectCharts(page);
    expect(await page.textContent('#status')).toMatch(new RegExp(`^${lines().length} events; pass \\d+, [\\d.]+ s; last exact gap `));
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("the README's watch: the page shows the trace, and a line appended to it appears; Ctrl-C stops the server (exit 130)", async () => {
    const all = lines();
    const liveDir = mkdtempSync(join(dir, 'live-'));
    const live = join(liveDir, 'ocr.jsonl');
    writeFileSync(live, `${all.slice(0, 25).join('\n')}\n`); // passes 1-23 and two exact checks
    const argv = runnable(documentedCommand('README.md', 'watch ocr.jsonl'), liveDir);
    expect(argv).toEqual(['watch', live, '--port', '8765']);
    const main = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
    if (!existsSync(main)) throw new Error('dist/src/cli/main.js is missing: run `npm run build:ts` first (.ci/run does)');
    const server: ChildProcess = spawn(process.execPath, [main, ...argv, '--interval', '0.1', '--json']);
    let stderr = '';
    let stdout = '';
    server.stderr!.on('data', (b) => (stderr += b));
    server.stdout!.on('data', (b) => (stdout += b));
    const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
    try {
      const url = 'http://127.0.0.1:8765/';
      for (const t0 = Date.now(); !stderr.includes(` at ${url} `); await new Promise((r) => setTimeout(r, 50))) {
        if (Date.now() - t0 > 60_000 || server.exitCode !== null) throw new Error(`watch did not start: ${stderr}`);
      }
      const { page, errors, requests } = await open(url);
      await page.waitForSelector('body[data-drawn="25"]', { state: 'attached', timeout: 30_000 });
      await expectCharts(page);
      // A new line of the trace: the page shows it (the status and the last event) within a few polls.
      const next = JSON.parse(all[25]!) as { pass: number; seconds: number };
      appendFileSync(live, `${all[25]}\n`);
      await page.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('26 events'), undefined, { timeout: 30_000 });
      await page.waitForSelector('body[data-drawn="26"]', { state: 'attached', timeout: 30_000 });
      expect(JSON.parse((await page.textContent('#last'))!)).toMatchObject({ pass: next.pass, seconds: next.seconds });
      expect(await page.textContent('#status')).toMatch(/; live$/);
      expect(requests.every((u) => u.startsWith(url))).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      server.kill('SIGINT');
    }
    expect(await exited).toBe(130);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ command: 'watch', events: 26 });
  }, 180_000);
});
