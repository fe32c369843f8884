/**
 * The benchmark report (issue 12): runs every benchmark of scripts/bench/ with modest settings, one after
 * the other, and rewrites the generated section of docs/benchmarks.md (between the markers
 * `<!-- bench:report:start -->` and `<!-- bench:report:end -->`) with the figures side by side as ratios.
 *
 *   npm run bench:report                      # all benchmarks, about 2 minutes on 2 cores
 *   npx tsx scripts/bench/report.ts --only gdt,maxflow --out /tmp/b.md --json /tmp/b.json
 *
 * Known benchmarks get a hand-written summary (below). A script added to scripts/bench/ later is run too
 * (with `--quick` when its source mentions that flag): every numeric field of its JSON whose name says
 * ratio / speedup / Over is listed, until it gets a summary of its own here.
 *
 * Each benchmark's raw JSON goes to `--json FILE` when given. Progress goes to stderr.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const START = '<!-- bench:report:start -->';
const END = '<!-- bench:report:end -->';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    out: { type: 'string', default: join(root, 'docs', 'benchmarks.md') },
    json: { type: 'string' },
    'timeout-s': { type: 'string', default: '600' },
  },
});

/** One comparison: `fast` against `slow`, ratio = slow time / fast time (or fast rate / slow rate). */
interface Row {
  bench: string;
  what: string;
  fast: string;
  slow: string;
  ratio: number | null;
}

/** A benchmark: its script, the modest arguments the report uses, and how its JSON becomes rows. */
interface Bench {
  name: string;
  args: string[];
  summarize?: (json: any) => { rows: Row[]; extra?: string[] };
}

const fmt = (x: number | null | undefined, digits = 3): string => (x === null || x === undefined || !Number.isFinite(x) ? '-' : Number(x.toPrecision(digits)).toLocaleString('en-US'));
const ms = (x: number | null | undefined) => `${fmt(x)} ms`;
const ratio = (slow: number | null | undefined, fast: number | null | undefined): number | null =>
  slow === null || slow === undefined || fast === null || fast === undefined || !(fast > 0) ? null : slow / fast;

const KNOWN: Bench[] = [
  {
    name: 'gdt',
    args: [],
    summarize: (j) => {
      const rows: Row[] = [];
      const one = (n: number) => j.oneD.find((r: any) => r.n === n);
      const two = (h: number) => j.twoD.find((r: any) => r.height === h);
      for (const n of [1e4, 1e6]) {
        const r = one(n);
        if (r) rows.push({ bench: 'gdt', what: `1-D distance transform, n = ${fmt(n)}`, fast: `native ${ms(r.nativeMs)}`, slow: `TypeScript ${ms(r.tsMs)}`, ratio: ratio(r.tsMs, r.nativeMs) });
      }
      const b1 = one(1e4);
      if (b1?.bruteMs) rows.push({ bench: 'gdt', what: '1-D distance transform, n = 10,000: against brute force', fast: `native ${ms(b1.nativeMs)}`, slow: `brute force O(n^2) ${ms(b1.bruteMs)}`, ratio: ratio(b1.bruteMs, b1.nativeMs) });
      for (const h of [64, 1024]) {
        const r = two(h);
        if (r) rows.push({ bench: 'gdt', what: `2-D distance transform, ${h} x ${h}`, fast: `native ${ms(r.nativeMs)}`, slow: `TypeScript ${ms(r.tsMs)}`, ratio: ratio(r.tsMs, r.nativeMs) });
      }
      const b2 = two(64);
      if (b2?.bruteMs) rows.push({ bench: 'gdt', what: '2-D distance transform, 64 x 64: against brute force', fast: `native ${ms(b2.nativeMs)}`, slow: `brute force ${ms(b2.bruteMs)}`, ratio: ratio(b2.bruteMs, b2.nativeMs) });
      const big = two(1024);
      if (big) rows.push({ bench: 'gdt', what: '2-D, 1024 x 1024: async (worker thread) vs sync', fast: `sync ${ms(big.nativeMs)}`, slow: `async ${ms(big.nativeAsyncMs)}`, ratio: ratio(big.nativeAsyncMs, big.nativeMs) });
      const agree = [...j.oneD, ...j.twoD].every((r: any) => r.nativeVsTs?.values === 0 && r.nativeVsTs?.argmaxMismatches === 0);
      return { rows, extra: [`gdt: native and TypeScript agree exactly on every input: ${agree ? 'yes' : '**no**'}.`] };
    },
  },
  {
    name: 'maxflow',
    args: ['--quick'],
    summarize: (j) => {
      const rows: Row[] = [];
      for (const r of j.nativeVsTsDinic ?? []) rows.push({ bench: 'maxflow', what: `grid ${r.grid}, ${r.smoothness} smoothness`, fast: `BK native ${ms(r.nativeMs)}`, slow: `Dinic TypeScript ${ms(r.tsDinicMs)}`, ratio: r.ratio });
      for (const r of j.grids ?? []) {
        rows.push({ bench: 'maxflow', what: `grid ${r.grid} ${r.smoothness}: local change of unaries`, fast: `tree reuse ${ms(r.localReuseMs)}`, slow: `fresh solve ${ms(r.localFreshMs)}`, ratio: r.localReuseSpeedup });
        rows.push({ bench: 'maxflow', what: `grid ${r.grid} ${r.smoothness}: global change (+-5%)`, fast: `tree reuse ${ms(r.globalReuseMs)}`, slow: `fresh solve ${ms(r.globalFreshMs)}`, ratio: r.globalReuseSpeedup });
      }
      for (const r of j.superpixels ?? []) {
        rows.push({ bench: 'maxflow', what: `superpixel graph, ${r.nodes} nodes: per oracle call`, fast: `tree reuse ${fmt(r.reuseUsPerCall)} us`, slow: `fresh ${fmt(r.freshUsPerCall)} us`, ratio: r.reuseSpeedup });
        rows.push({ bench: 'maxflow', what: `superpixel graph, ${r.nodes} nodes: BK vs Dinic`, fast: `BK fresh ${fmt(r.freshUsPerCall)} us`, slow: `Dinic TypeScript ${fmt(r.tsDinicUsPerCall)} us`, ratio: r.tsDinicRatio });
      }
      for (const r of j.batch ?? []) rows.push({ bench: 'maxflow', what: `maxflowBatch, ${r.graphs} graphs (${r.batch.replace(/^\d+ /, '')})`, fast: `2 threads ${ms(r.threads2Ms)}`, slow: `1 thread ${ms(r.threads1Ms)}`, ratio: r.speedup2vs1 });
      for (const r of j.smallGraphs?.rows ?? []) {
        rows.push({ bench: 'maxflow', what: `${r.graph} (${fmt(r.edges)} edges): one-shot maxflow() against the solve alone`, fast: `solve ${fmt(r.solveOnlyUs)} us`, slow: `one-shot ${fmt(r.oneShotUs)} us`, ratio: ratio(r.oneShotUs, r.solveOnlyUs) });
      }
      const extra = j.dimacs ? [`maxflow: DIMACS ${j.dimacs.instance}, ${fmt(j.dimacs.bytes / 1e6)} MB, ${fmt(j.dimacs.edges)} edges after merging the arcs of each node pair, ${j.dimacs.capType}: read file and build graph ${ms(j.dimacs.readMs)}, solve ${ms(j.dimacs.solveMs)} (what \`gapbcfw maxflow FILE --json\` reports as readMs and solveMs).`] : [];
      const faults = (j.pageFaults ?? []).map((r: any) => `${r.what}: ${fmt(r.faultsPerCall)}`);
      if (faults.length) extra.push(`maxflow: minor page faults per call in steady state: ${faults.join('; ')}.`);
      extra.push('maxflow: times are process CPU time (the batch rows wall time).');
      return { rows, extra };
    },
  },
  {
    name: 'gap-pass',
    args: ['--repeats', '5', '--models', 'chain,multiclass,conll,pose'],
    summarize: (j) => {
      const rows: Row[] = [];
      const extra: string[] = [];
      if (Array.isArray(j.results)) {
        // Per model and scoring backend (scripts/bench/gap-pass.ts with kernels/).
        for (const r of j.results) {
          const per = `per object ${fmt(r.perObjectPerSecond)}/s`;
          for (const [label, b] of Object.entries<any>(r.backends ?? {})) {
            rows.push({ bench: 'gap-pass', what: `exact gap pass, ${r.model} on ${r.data} (n = ${fmt(r.n, 6)}): ${label}${b.mode && b.mode !== label && b.mode !== 'model default' ? ` (${b.mode})` : ''}`, fast: `batched ${fmt(b.objectsPerSecond)}/s`, slow: per, ratio: b.ratioVsPerObject });
            if (b.sameGap === false) extra.push(`gap-pass: ${r.model}, ${label}: the gap differs from the per-object pass beyond its tolerance.`);
          }
        }
        extra.push(`gap-pass: every batched configuration gives the per-object gap (1e-9 relative in float64, 1e-6 in float32): ${extra.length === 0 ? 'yes' : '**no**'}.`);
        return { rows, extra };
      }
      const o = j.objectsPerSecond;
      const per = `per object ${fmt(o.perObject)}/s`;
      return {
        rows: [
          { bench: 'gap-pass', what: `exact gap pass, ${j.data} (n = ${fmt(j.n, 6)}), 1 thread`, fast: `batched native ${fmt(o.batched1Thread)}/s`, slow: per, ratio: j.ratioVsPerObject.batched1Thread },
          { bench: 'gap-pass', what: `exact gap pass, ${j.data}, ${j.threads} threads`, fast: `batched native ${fmt(o.batchedAllThreads)}/s`, slow: per, ratio: j.ratioVsPerObject.batchedAllThreads },
        ],
        extra: [`gap-pass: the batched and per-object passes give the same gap: ${j.sameGap ? 'yes' : '**no**'}.`],
      };
    },
  },
  {
    name: 'ocr',
    args: ['--split', 'small,large', '--lambda', '1e-3', '--max-passes', '100', '--time-budget', '60'],
    summarize: (j) => {
      const rows: Row[] = (j.oracleOnly ?? []).map((r: any) => ({
        bench: 'ocr',
        what: `chain oracle alone (Viterbi), OCR-${r.split}, trained w`,
        fast: `native ${fmt(r.nativeCallsPerSecond)} calls/s`,
        slow: `TypeScript ${fmt(r.jsCallsPerSecond)} calls/s`,
        ratio: r.ratioJsOverNative,
      }));
      const extra = [
        '',
        'BCFW training on OCR (line search, averaging, uniform sampling, exact gap every 10 passes, one core):',
        '',
        '| data | lambda | n | oracle calls / s | s / effective pass | passes to gap 0.1 | passes | final gap | test error | stop |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        ...(j.runs ?? []).map((r: any) => `| OCR-${r.split} | ${r.lambda} | ${fmt(r.n, 6)} | ${fmt(r.oracleCallsPerSecond)} | ${fmt(r.secondsPerEffectivePass)} | ${r.passesToGap01 ?? '-'} | ${r.passes} | ${fmt(r.finalGap)} | ${fmt(r.testError)} | ${r.stopReason} |`),
      ];
      return { rows, extra };
    },
  },
];

/** Rows for a benchmark without a summary: every numeric ratio-like field of its JSON. */
function genericRows(name: string, json: unknown): Row[] {
  const rows: Row[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    else if (typeof v === 'number' && /ratio|speedup|over/i.test(path.split('.').pop() ?? '')) rows.push({ bench: name, what: `\`${path}\``, fast: '', slow: '', ratio: v });
  };
  walk(json, '');
  return rows.slice(0, 40);
}

function benches(): Bench[] {
  const files = readdirSync(join(root, 'scripts', 'bench')).filter((f) => f.endsWith('.ts') && f !== 'report.ts').map((f) => f.slice(0, -3)).sort();
  const list: Bench[] = [...KNOWN.filter((b) => files.includes(b.name))];
  for (const name of files) {
    if (KNOWN.some((b) => b.name === name)) continue;
    const src = readFileSync(join(root, 'scripts', 'bench', `${name}.ts`), 'utf8');
    list.push({ name, args: src.includes('--quick') ? ['--quick'] : [] });
  }
  const only = values.only?.split(',');
  return only ? list.filter((b) => only.includes(b.name)) : list;
}

function parseJson(stdout: string): unknown {
  const i = stdout.indexOf('{');
  if (i < 0) throw new Error('no JSON on stdout');
  try {
    return JSON.parse(stdout.slice(i));
  } catch {
    // A script that printed something before its JSON: take the last line that parses.
    const lines = stdout.trim().split('\n').reverse();
    for (const l of lines) {
      try {
        return JSON.parse(l);
      } catch {
        /* next */
      }
    }
    throw new Error('stdout is not JSON');
  }
}

const tsx = join(root, 'node_modules', '.bin', 'tsx');
const t0 = Date.now();
const loadStart = loadavg();
const rows: Row[] = [];
const extras: string[] = [];
const commands: string[] = [];
const raw: Record<string, unknown> = {};
for (const b of benches()) {
  const cmd = ['npx tsx', `scripts/bench/${b.name}.ts`, ...b.args].join(' ');
  commands.push(`\`${cmd}\``);
  process.stderr.write(`bench:report: ${cmd}\n`);
  const t = Date.now();
  const r = spawnSync(tsx, [join('scripts', 'bench', `${b.name}.ts`), ...b.args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 << 20,
    timeout: Number(values['timeout-s']) * 1000,
  });
  const seconds = (Date.now() - t) / 1000;
  if (r.status !== 0) {
    extras.push(`${b.name}: **failed** (exit ${r.status ?? r.signal}) after ${fmt(seconds)} s; no figures.`);
    continue;
  }
  try {
    const json = parseJson(r.stdout);
    raw[b.name] = json;
    const s = b.summarize ? b.summarize(json) : { rows: genericRows(b.name, json) };
    rows.push(...s.rows);
    extras.push(...(s.extra ?? []));
    process.stderr.write(`bench:report: ${b.name} done in ${fmt(seconds)} s\n`);
  } catch (e) {
    extras.push(`${b.name}: output could not be read (${(e as Error).message}).`);
  }
}
const loadEnd = loadavg();
const total = (Date.now() - t0) / 1000;

const la = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
const table = [
  START,
  `<!-- generated by \`npm run bench:report\` (scripts/bench/report.ts); edits between these markers are overwritten -->`,
  '',
  `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, Node ${process.version}, ${process.platform}-${process.arch}; ` +
    `load average (1 / 5 / 15 min) ${la(loadStart)} at the start and ${la(loadEnd)} at the end; ${fmt(total)} s in all.`,
  '',
  'Ratio = slower time / faster time (or faster rate / slower rate), both measured in the same run: > 1 means the left column wins by that factor.',
  '',
  '| benchmark | case | faster | slower | ratio |',
  '| --- | --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.bench} | ${r.what} | ${r.fast} | ${r.slow} | ${r.ratio === null ? '-' : `${fmt(r.ratio)}x`} |`),
  '',
  ...extras.map((e) => (e === '' || e.startsWith('|') || e.endsWith(':') ? e : `- ${e}`)),
  '',
  `Commands run: ${commands.join(', ')}.`,
  END,
].join('\n');

const out = values.out;
const page = existsSync(out) ? readFileSync(out, 'utf8') : `# Benchmarks\n\n${START}\n${END}\n`;
const a = page.indexOf(START);
const z = page.indexOf(END);
if (a < 0 || z < a) throw new Error(`${out}: markers ${START} ... ${END} not found`);
writeFileSync(out, page.slice(0, a) + table + page.slice(z + END.length));
if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: new Date().toISOString(), loadStart, loadEnd, seconds: total, results: raw }, null, 1)}\n`);
process.stderr.write(`bench:report: wrote ${out} (${rows.length} rows, ${fmt(total)} s)\n`);
