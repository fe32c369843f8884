/**
 * LSP pose figures (issues 9 and 21): trains the pose model through the generic `gapbcfw train lsp:DIR` for every
 * combination of training set, part types, midpoints, pyramid and lambda asked for, and reports test PCP / PCK /
 * loss against the mean-pose baseline, the exact gap reached and the run's oracle counters (per-image oracle
 * calls on one thread and batched exact passes on every core; scripts/bench/pose-oracle.ts times the oracle on
 * one core). One JSON object per run on stdout (run settings, the train summary's figures), progress on stderr;
 * with --traces DIR each run also writes its JSONL trace there.
 *
 *   npx tsx scripts/experiments/lsp.ts --splits small,full --types 1,3,6 --midpoints off,on --scales 1 \
 *       --lambdas 1 --max-passes 30 --time-budget 1500 --test-limit 1000
 *
 * --scales takes pyramids separated by ';' (e.g. '1;1,0.8,1.25'). Data: $GAPBCFW_DATA/lsp or ../shared/data/lsp
 * (src/data/paths.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { main } from '../../src/cli/main.js';
import { dataPath } from '../../src/data/paths.js';

/** Runs `gapbcfw ARGS --json`: its exit code and the JSON object of its last stdout line. */
async function run(args: string[]): Promise<{ code: number; json: Record<string, unknown> | undefined }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (b) => (text += b));
  const code = await main(args, { stdout: out, stderr: process.stderr });
  const last = text.trim().split('\n').at(-1) ?? '';
  return { code, json: last.startsWith('{') ? (JSON.parse(last) as Record<string, unknown>) : undefined };
}

const { values } = parseArgs({
  options: {
    splits: { type: 'string', default: 'small' },
    types: { type: 'string', default: '1' },
    midpoints: { type: 'string', default: 'off' },
    scales: { type: 'string', default: '1' },
    lambdas: { type: 'string', default: '1' },
    'max-passes': { type: 'string', default: '30' },
    'time-budget': { type: 'string' },
    'gap-check': { type: 'string', default: '10' },
    'gap-threshold': { type: 'string', default: '0.001' },
    'test-limit': { type: 'string', default: '1000' },
    sbin: { type: 'string', default: '4' },
    traces: { type: 'string' },
  },
});
const list = (s: string, sep = ',') => s.split(sep).filter((t) => t !== '');
if (values.traces) mkdirSync(values.traces, { recursive: true });
for (const split of list(values.splits)) {
  for (const scales of list(values.scales, ';')) {
    for (const midpoints of list(values.midpoints)) {
      for (const types of list(values.types)) {
        for (const lambda of list(values.lambdas)) {
          const name = `${split}-K${types}-${midpoints === 'on' ? 'mid' : 'nomid'}-s${scales.replace(/,/g, '_')}-l${lambda}`;
          const args = ['train', `lsp:${dataPath('lsp')}`, '--split', split, '--types', types, midpoints === 'on' ? '--midpoints' : '--no-midpoints', '--scales', scales];
          args.push('--lambda', lambda, '--max-passes', values['max-passes'], '--gap-check', values['gap-check'], '--gap-threshold', values['gap-threshold']);
          args.push('--test-limit', values['test-limit'], '--sbin', values.sbin, '--batch', '1', '--json', '--quiet');
          if (values['time-budget']) args.push('--time-budget', values['time-budget']);
          if (values.traces) args.push('--trace', join(values.traces, `${name}.jsonl`));
          process.stderr.write(`${name}: gapbcfw ${args.join(' ')}\n`);
          const r = await run(args);
          if (r.code !== 0 || r.json === undefined) process.exit(r.code || 1);
          const j = r.json;
          const keys = ['n', 'nTest', 'dim', 'passes', 'effectivePasses', 'oracleCalls', 'seconds', 'gap', 'gapIsExact', 'stopReason', 'testError', 'pcp', 'pck', 'meanPosePcp', 'meanPosePck', 'meanPoseLoss', 'oracle'];
          console.log(JSON.stringify({ run: name, split, types: Number(types), midpoints: midpoints === 'on', scales, lambda: Number(lambda), ...Object.fromEntries(keys.map((k) => [k, j[k]])) }));
        }
      }
    }
  }
}
