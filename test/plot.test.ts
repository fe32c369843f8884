import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers/capture.js';
import { FormatError, InputError } from '../src/core/errors.js';
import { modelProblem } from '../src/engine/problem.js';
import { syntheticChain } from '../src/data/synthetic.js';
import { ChainModel, sequencesXY } from '../src/models/chain.js';
import { aggregateCurves, buildFigure, deriveTitle, median, renderPng, renderSvg, runCurve, type Point } from '../src/plot/figures.js';
import { groupSeries, parseTrace, readTraces, type TraceEvent } from '../src/plot/traces.js';
import { bcfw } from '../src/solvers/bcfw.js';
import type { TrainSettings } from '../src/solvers/settings.js';

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-plot-'));
let fileCounter = 0;

/** A trace line: counters default to the pass, gap exact unless said otherwise. */
function ev(fields: Partial<TraceEvent> & { pass: number }): TraceEvent {
  return { effectivePasses: fields.pass, oracleCalls: 10 * fields.pass, seconds: fields.pass / 10, gapIsExact: fields.gap !== undefined, ...fields };
}

function writeTrace(events: object[], name = `t${++fileCounter}.jsonl`, sub = ''): string {
  const folder = join(dir, sub);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, name);
  writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return file;
}

const plot = (...args: string[]) => cli('plot', ...args);

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// Hand-made seeds of one method (x = pass): A (0,4) (2,2) (4,1); B (1,8) (3,2); C (0,6) (4,3).
const HAND = {
  A: [{ x: 0, y: 4 }, { x: 2, y: 2 }, { x: 4, y: 1 }],
  B: [{ x: 1, y: 8 }, { x: 3, y: 2 }],
  C: [{ x: 0, y: 6 }, { x: 4, y: 3 }],
};
const HAND_BAND = [
  { x: 0, median: 5, min: 4, max: 6, seeds: 2 }, // B has not measured yet
  { x: 1, median: 6, min: 4, max: 8, seeds: 3 },
  { x: 2, median: 6, min: 2, max: 8, seeds: 3 },
  { x: 3, median: 2, min: 2, max: 6, seeds: 3 },
  { x: 4, median: 2, min: 1, max: 3, seeds: 3 },
];

/** Trace lines of a curve, with non-exact events (ignored by the gap figure) in between. */
function linesOf(points: Point[], extra: Partial<TraceEvent>): TraceEvent[] {
  return points.flatMap((p) => [ev({ pass: p.x, dual: -p.y, gapEstimate: 100, ...extra }), ev({ pass: p.x, gap: p.y, primal: p.y, ...extra })]);
}

describe('traces', () => {
  it('groups lines into runs by method and seed; files without method are named after the file, seed 1', () => {
    const mixed = writeTrace([
      ...linesOf(HAND.A, { method: 'm1', seed: 1, lambda: 0.01, data: 'ocr:/x/y/letter.data.gz' }),
      ...linesOf(HAND.B, { method: 'm1', seed: 2, lambda: 0.01, data: 'ocr:/x/y/letter.data.gz' }),
      ...linesOf(HAND.C, { method: 'm2', seed: 7, lambda: 0.01, data: 'ocr:/x/y/letter.data.gz' }),
    ]);
    const plain = writeTrace([ev({ pass: 1 }), ev({ pass: 2, gap: 0.5 })], 'bcfw-run.jsonl');
    const set = readTraces([mixed, plain]);
    expect(set.files).toEqual([mixed, plain]);
    expect(set.runs.map((r) => [r.method, r.seed, r.events.length])).toEqual([
      ['m1', 1, 6],
      ['m1', 2, 4],
      ['m2', 7, 4],
      ['bcfw-run', 1, 2],
    ]);
    expect(set.runs[0]!.lambda).toBe(0.01);
    const series = groupSeries(set.runs);
    expect(series.map((s) => [s.method, s.runs.map((r) => r.seed)])).toEqual([
      ['m1', [1, 2]],
      ['m2', [7]],
      ['bcfw-run', [1]],
    ]);
    expect(deriveTitle(set.runs.slice(0, 3))).toBe('ocr:letter.data.gz, λ = 0.01');
    expect(deriveTitle(set.runs)).toBeUndefined(); // the plain run has neither field
  });

  it('expands directories to their *.jsonl files and refuses the same method and seed twice', () => {
    writeTrace([ev({ pass: 1, gap: 1 })], 'b.jsonl', 'dirA');
    writeTrace([ev({ pass: 1, gap: 1 })], 'a.jsonl', 'dirA');
    writeFileSync(join(dir, 'dirA', 'notes.txt'), 'not a trace');
    const set = readTraces([join(dir, 'dirA')]);
    expect(set.files.map((f) => f.slice(-7))).toEqual(['a.jsonl', 'b.jsonl']);
    writeTrace([ev({ pass: 1, gap: 1 })], 'a.jsonl', 'dirB');
    expect(() => readTraces([join(dir, 'dirA'), join(dir, 'dirB')])).toThrow(/method 'a' seed 1 appears in both/);
    mkdirSync(join(dir, 'emptyDir'), { recursive: true });
    expect(() => readTraces([join(dir, 'emptyDir')])).toThrow(/contains no \*\.jsonl/);
    expect(() => readTraces([join(dir, 'missing.jsonl')])).toThrow(InputError);
  });

  it('names the file and line of a malformed line', () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${JSON.stringify(ev({ pass: 1 }))}\n\n{"pass": 2, "effectivePasses": 2,\n`);
    let error: unknown;
    try {
      readTraces([file]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).line).toBe(3);
    expect((error as FormatError).message).toContain(`${file}:3: not valid JSON`);
    expect(() => parseTrace('{"pass":1,"effectivePasses":1,"oracleCalls":1,"seconds":0}', 'f.jsonl')).toThrow(/f\.jsonl:1: 'gapIsExact' must be true or false/);
    expect(() => parseTrace('[1,2]', 'f.jsonl')).toThrow(/f\.jsonl:1: expected a JSON object/);
    expect(() => parseTrace(`${JSON.stringify(ev({ pass: 1 }))}\n${JSON.stringify({ ...ev({ pass: 2 }), seconds: 'x' })}`, 'f.jsonl')).toThrow(/f\.jsonl:2: 'seconds' must be a finite number/);
    expect(() => parseTrace(JSON.stringify({ ...ev({ pass: 2 }), seed: 1.5 }), 'f.jsonl')).toThrow(/'seed' must be an integer/);
    // null (how JSON writes NaN/Infinity) is read as absent
    expect(parseTrace(JSON.stringify({ ...ev({ pass: 2 }), gap: null }), 'f.jsonl')[0]!.gap).toBeUndefined();
  });
});

describe('aggregation', () => {
  it('median of odd and even lists', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(InputError);
  });

  it('step-interpolates seeds onto the union grid: median and min-max of a hand-made example', () => {
    expect(aggregateCurves([HAND.A, HAND.B, HAND.C])).toEqual(HAND_BAND);
  });

  it('the gap figure uses exact positive gaps only and aggregates per method', () => {
    const runs = [
      { method: 'm', seed: 1, file: 'a', events: [...linesOf(HAND.A, {}), ev({ pass: 5, gap: 0 }), ev({ pass: 6, gap: 0.5, gapIsExact: false })] },
      { method: 'm', seed: 2, file: 'b', events: linesOf(HAND.B, {}) },
      { method: 'm', seed: 3, file: 'c', events: linesOf(HAND.C, {}) },
      { method: 'other', seed: 1, file: 'd', events: [ev({ pass: 1 }), ev({ pass: 2 })] }, // no exact gap at all
    ];
    expect(runCurve(runs[0]!, 'passes', 'gap')).toEqual(HAND.A);
    const figure = buildFigure(groupSeries(runs), { x: 'passes' });
    expect(figure.series).toEqual([{ method: 'm', seeds: [1, 2, 3], points: 5, band: HAND_BAND }]);
    expect(figure.skipped).toEqual(['other']);
    // other metrics: the dual (negative here) is fine on its linear scale
    const dual = buildFigure(groupSeries(runs), { x: 'passes', y: 'dual' });
    expect(dual.series.map((s) => s.method)).toEqual(['m']);
    expect(dual.series[0]!.band[0]).toEqual({ x: 0, median: -5, min: -6, max: -4, seeds: 2 });
    expect(() => buildFigure(groupSeries(runs.slice(3)))).toThrow(/no exact duality gaps > 0 to plot in 1 run/);
    expect(() => buildFigure(groupSeries(runs), { y: 'testError' })).toThrow(/no 'testError' values to plot/);
  });

  it('gapRatio (2016 Fig. 1b): each exact gap over the estimate of the same pass; exact gaps of other passes are not paired', () => {
    const run = {
      events: [
        ev({ pass: 1, gapEstimate: 8 }),
        ev({ pass: 2, gapEstimate: 6 }),
        ev({ pass: 2, gap: 4, monitor: true }), // 6 / 4
        ev({ pass: 3, gapEstimate: 3 }),
        ev({ pass: 4, gap: 2 }), // no estimate logged at pass 4: not a point
        ev({ pass: 5, gapEstimate: 1 }),
        ev({ pass: 5, effectivePasses: 6, gap: 4 }), // a scheduled check after pass 5: 1 / 4, at its own x
      ],
    };
    expect(runCurve(run, 'passes', 'gapRatio')).toEqual([{ x: 2, y: 1.5 }, { x: 5, y: 0.25 }]);
    expect(runCurve(run, 'effective', 'gapRatio').map((p) => p.x)).toEqual([2, 6]);
    // a real run's trace: a point at every monitored pass and at every scheduled check, each a positive ratio
    const data = syntheticChain({ sequences: 40, seed: 3 });
    const { xs, ys } = sequencesXY(data.examples);
    const problem = modelProblem(new ChainModel({ numFeatures: data.numFeatures, numLabels: data.numLabels, backend: 'js' }), xs, ys);
    const events: TraceEvent[] = [];
    bcfw(problem, { lambda: 0.01, sampling: 'gap', gapThreshold: 1e-12, maxPasses: 12, gapCheck: 5, monitorEvery: 2, seed: 1 }, { onProgress: (e) => events.push(e) });
    const ratios = runCurve({ events }, 'passes', 'gapRatio');
    expect(ratios.map((p) => p.x)).toEqual([2, 4, 5, 6, 8, 10, 12]);
    for (const p of ratios) expect(p.y).toBeGreaterThan(0);
  });

  it('x axes: effective passes, passes and seconds', () => {
    const run = { events: [ev({ pass: 1, effectivePasses: 0.5, seconds: 3, gap: 2 }), ev({ pass: 2, effectivePasses: 0.8, seconds: 7, gap: 1 })] };
    expect(runCurve(run, 'effective').map((p) => p.x)).toEqual([0.5, 0.8]);
    expect(runCurve(run, 'passes').map((p) => p.x)).toEqual([1, 2]);
    expect(runCurve(run, 'time').map((p) => p.x)).toEqual([3, 7]);
  });
});

describe('figures', () => {
  const series = groupSeries([
    { method: 'BCFW, uniform', seed: 1, file: 'a', lambda: 0.001, data: 'synthetic:', events: linesOf(HAND.A, {}) },
    { method: 'BCFW, uniform', seed: 2, file: 'b', lambda: 0.001, data: 'synthetic:', events: linesOf(HAND.B, {}) },
    { method: 'BCFW, gap', seed: 1, file: 'c', lambda: 0.001, data: 'synthetic:', events: linesOf(HAND.C, {}) },
  ]);

  it('the gap spec has a log y scale, the primal spec a linear one; the title comes from data and lambda', () => {
    const gap = buildFigure(series);
    const text = JSON.stringify(gap.spec);
    expect(text).toContain('"scale":{"type":"log"}');
    expect(text).toContain('"title":"duality gap"');
    expect(text).toContain('"title":"effective passes"');
    expect(gap.title).toBe('synthetic:, λ = 0.001');
    const primal = buildFigure(series, { y: 'primal', x: 'time', title: 'Custom' });
    const ptext = JSON.stringify(primal.spec);
    expect(ptext).not.toContain('"type":"log"');
    expect(ptext).toContain('"title":"time (s)"');
    expect(primal.title).toBe('Custom');
  });

  it('SVG has the axis titles and one line path per method; PNG has the signature and the requested size', async () => {
    const figure = buildFigure(series, { width: 400, height: 250 });
    const svg = await renderSvg(figure.spec);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('effective passes');
    expect(svg).toContain('duality gap');
    expect(svg).toContain('synthetic:, λ = 0.001');
    expect(svg.match(/aria-roledescription="line mark"/g)?.length).toBe(2);
    expect(svg.match(/aria-roledescription="area mark"/g)?.length).toBe(2);
    for (const method of ['BCFW, uniform', 'BCFW, gap']) expect(svg).toContain(`method: ${method}"`);

    const png = renderPng(svg, { width: 900 });
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const svgWidth = Number(/<svg[^>]* width="([\d.]+)"/.exec(svg)![1]);
    const svgHeight = Number(/<svg[^>]* height="([\d.]+)"/.exec(svg)![1]);
    const size = pngSize(png);
    expect(size.width).toBe(900);
    expect(Math.abs(size.height - (900 * svgHeight) / svgWidth)).toBeLessThanOrEqual(1);
    expect(pngSize(renderPng(svg)).width).toBe(Math.round(2 * svgWidth)); // default: 2x
  });
});

describe('gapbcfw plot (runPlot)', () => {
  it('end to end on traces of bcfw on synthetic chains: two methods x two seeds', async () => {
    const data = syntheticChain({ sequences: 40, seed: 3 });
    const { xs, ys } = sequencesXY(data.examples);
    const problem = modelProblem(new ChainModel({ numFeatures: data.numFeatures, numLabels: data.numLabels, backend: 'js' }), xs, ys);
    const methods: Record<string, TrainSettings> = {
      'BCFW, uniform': { sampling: 'uniform', averaging: false },
      'BCFW, gap, cache': { sampling: 'gap', cache: true },
    };
    const runsDir = join(dir, 'runs');
    mkdirSync(runsDir, { recursive: true });
    for (const [method, options] of Object.entries(methods)) {
      for (const seed of [1, 2]) {
        const lines: string[] = [];
        bcfw(problem, { lambda: 0.01, seed, maxPasses: 8, gapCheck: 2, gapThreshold: 1e-12, ...options }, { onProgress: (e) => lines.push(JSON.stringify({ method, seed, lambda: 0.01, data: 'synthetic:', ...e })) });
        writeFileSync(join(runsDir, `${method.replace(/\W+/g, '-')}-seed${seed}.jsonl`), `${lines.join('\n')}\n`);
      }
    }
    const out = join(dir, 'figs', 'gap.png');
    const r = await plot(runsDir, '--out', out, '--json', '--width', '300', '--height', '200');
    expect(r.code).toBe(0);
    expect(r.json!.command).toBe('plot');
    expect(r.json!.out).toBe(out);
    expect(r.json!.format).toBe('png');
    expect(r.json!.title).toBe('synthetic:, λ = 0.01');
    const series = r.json!.series as { method: string; seeds: number[]; points: number }[];
    expect(series.map((s) => s.method).sort()).toEqual(Object.keys(methods).sort());
    for (const s of series) {
      expect(s.seeds).toEqual([1, 2]);
      expect(s.points).toBeGreaterThanOrEqual(4); // exact gaps every 2 of 8 passes, per seed
    }
    const png = readFileSync(out);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(pngSize(png).width).toBeGreaterThan(600); // 2x a 300 px plot area plus axes and legend

    // SVG, time axis, test error... and the human-readable summary
    const svgOut = join(dir, 'figs', 'time.svg');
    const h = await plot(join(runsDir, 'BCFW-uniform-seed1.jsonl'), join(runsDir, 'BCFW-uniform-seed2.jsonl'), '--x', 'time', '--out', svgOut, '--title', 'Two seeds');
    expect(h.stdout).toMatch(/^wrote .*time\.svg \(1 method, 2 runs\)/);
    const svg = readFileSync(svgOut, 'utf8');
    expect(svg).toContain('time (s)');
    expect(svg).toContain('Two seeds');
    expect(svg.match(/aria-roledescription="line mark"/g)?.length).toBe(1);

    // the spec as JSON
    const specOut = join(dir, 'figs', 'spec.json');
    await plot(runsDir, '--y', 'gapEstimate', '--out', specOut);
    expect(JSON.parse(readFileSync(specOut, 'utf8')).layer[0].encoding.y.scale).toEqual({ type: 'log' });
  });

  it('usage and input errors', async () => {
    expect((await plot()).code).toBe(2);
    const good = writeTrace([ev({ pass: 1, gap: 1 })]);
    expect((await plot(good, '--x', 'bananas')).stderr).toMatch(/--x must be one of/);
    expect((await plot(good, '--y', 'gapp')).stderr).toMatch(/--y must be one of/);
    expect((await plot(good, '--out', 'fig.pdf')).stderr).toMatch(/--out must end in \.svg, \.png, \.json or \.html/);
    expect((await plot(good, '--width', '-3')).code).toBe(2);
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '\n');
    expect((await plot(empty, '--out', join(dir, 'x.svg'))).stderr).toMatch(/no events in .*empty\.jsonl/);
    const inexact = writeTrace([ev({ pass: 1 }), ev({ pass: 2 })]);
    expect((await plot(inexact, '--out', join(dir, 'x.svg'))).stderr).toMatch(/no exact duality gaps/);
    const bad = join(dir, 'bad2.jsonl');
    writeFileSync(bad, `${JSON.stringify(ev({ pass: 1, gap: 1 }))}\nnot json\n`);
    expect((await plot(bad, '--out', join(dir, 'x.svg'))).stderr).toMatch(/bad2\.jsonl:2:/);
    // all errors are InputErrors: the CLI exits with code 2 and one line
    expect((await plot(inexact, '--out', join(dir, 'x.svg'))).code).toBe(2);
    const help = await plot('--help');
    expect(help.stdout).toMatch(/Usage: gapbcfw plot/);
  });
});
