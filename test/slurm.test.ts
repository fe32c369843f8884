// A real Slurm cluster (issue 34): Debian's slurm-wlm with one node on localhost (scripts/slurm-local.sh) runs the
// batch scripts of docs/cluster.md exactly as written: the exact gap in shards of a job array and gap-merge (equal to
// one pass bit for bit), a lambda grid as an array with its merge, and a run cancelled by scancel (SIGTERM) whose
// model and checkpoint survive and resume. Skipped with the reason where root, the packages or the data are missing.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPath } from '../src/data/paths.js';
import { readCheckpoint } from '../src/solvers/checkpoint.js';
import { loadModel } from '../src/tasks/model.js';
import { allOf, needsData, unless } from './helpers/skips.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'src', 'cli', 'main.js');
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const isRoot = process.getuid?.() === 0;
const hasSlurm = ['slurmctld', 'slurmd', 'sbatch', 'scancel', 'munged'].every(has);

/** The scripts of docs/cluster.md by name (`# NAME.sbatch: ...` on their second line) and its `sh` blocks, in order. */
function clusterPage(): { scripts: Map<string, string>; blocks: string[][] } {
  const page = readFileSync(join(root, 'docs', 'cluster.md'), 'utf8');
  const scripts = new Map([...page.matchAll(/```bash\n(#!\/bin\/bash\n# ([a-z-]+\.sbatch):[\s\S]*?)```/g)].map((m) => [m[2]!, m[1]!]));
  const blocks = [...page.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split('\n').map((l) => l.replace(/\s+#.*$/, '')));
  return { scripts, blocks };
}

let startedHere = false;
let work = '';
let env: NodeJS.ProcessEnv = {};

function run(cmd: string, args: string[], options: SpawnSyncOptions = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, timeout: 300_000, ...options });
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}
const ok = (r: ReturnType<typeof run>, what: string) => {
  expect(r.status, `${what}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
};
/** Runs lines of a documented `sh` block in `dir` (where the scripts are and the jobs run), with `vars` set. */
const shell = (line: string, dir: string, vars: Record<string, string> = {}) => ok(run('bash', ['-euo', 'pipefail', '-c', line], { cwd: dir, env: { ...env, ...vars } }), line);
const gapbcfw = (...args: string[]) => JSON.parse(ok(run(process.execPath, [cli, ...args]), args.join(' ')).trim().split('\n').at(-1)!) as Record<string, unknown>;
const jobField = (job: string, field: string) => new RegExp(`\\b${field}=(\\S+)`).exec(run('scontrol', ['show', 'job', '-o', job]).stdout)?.[1];
async function until(what: string, test: () => boolean, seconds = 120): Promise<void> {
  for (const t0 = Date.now(); !test(); await new Promise((r) => setTimeout(r, 200))) {
    if (Date.now() - t0 > seconds * 1000) throw new Error(`timed out waiting for ${what}`);
  }
}

const slurmDir = join(tmpdir(), 'gapbcfw-slurm');
/** A cluster that runs already (CI started it) is used as it is; otherwise, as root, the test starts one. */
const clusterUp = () => hasSlurm && spawnSync('bash', [join(root, 'scripts', 'slurm-local.sh'), 'status', slurmDir], { env: { ...process.env, SLURM_CONF: join(slurmDir, 'slurm.conf') } }).status === 0;
const skip = allOf(
  unless(isRoot || clusterUp(), 'needs root to start Slurm (scripts/slurm-local.sh), or a cluster it started'),
  unless(hasSlurm, 'needs slurm-wlm and munge (apt-get install -y slurm-wlm munge)'),
  needsData('weizmann_horse', 'weizmann_horse_db', 'rgb'),
);

describe('a real Slurm cluster runs the scripts of docs/cluster.md', skip, () => {
  let scriptsDir = '';
  let horse = '';
  let model = '';
  const page = clusterPage();

  beforeAll(() => {
    if (!existsSync(cli)) throw new Error('dist/src/cli/main.js is missing: run `npm run build:ts` first (.ci/run does)');
    env = { ...process.env, SLURM_CONF: join(slurmDir, 'slurm.conf'), GAPBCFW: `${process.execPath} ${cli}` };
    if (!clusterUp()) {
      ok(run('bash', [join(root, 'scripts', 'slurm-local.sh'), 'start', slurmDir]), 'slurm-local.sh start');
      startedHere = true;
    }
    work = mkdtempSync(join(tmpdir(), 'gapbcfw-slurm-test-'));
    chmodSync(work, 0o755);
    scriptsDir = join(work, 'scripts');
    mkdirSync(scriptsDir);
    for (const [name, text] of page.scripts) writeFileSync(join(scriptsDir, name), text, { mode: 0o755 });
    // 40 Weizmann horses (30 train, 10 test) with small codebooks, and a model trained on them.
    horse = join(work, 'horse');
    gapbcfw('prepare-horse', dataPath('weizmann_horse', 'weizmann_horse_db'), '--out', horse, '--limit', '40', '--train-size', '30', '--colour-words', '32', '--gradient-words', '32', '--json', '--quiet');
    model = join(work, 'horse.gbm');
    gapbcfw('train', `horse:${horse}`, '--max-passes', '20', '--out', model, '--json', '--quiet');
  }, 300_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
    if (startedHere) run('bash', [join(root, 'scripts', 'slurm-local.sh'), 'stop', slurmDir]);
  });

  it('docs/cluster.md has the five scripts and their submission blocks', () => {
    expect([...page.scripts.keys()]).toEqual(['gap-shards.sbatch', 'gap-merge.sbatch', 'lambda-grid.sbatch', 'grid-merge.sbatch', 'train-resumable.sbatch']);
    expect(page.blocks).toHaveLength(3);
  });

  it('an array of gap --shard I/4 and gap-merge: exactly the numbers of one pass', () => {
    const out = join(work, 'gap');
    mkdirSync(out);
    shell(page.blocks[0]!.join('\n'), scriptsDir, { MODEL: model, HORSE: horse, OUT: out });
    expect(readdirSync(out).filter((f) => /^part-\d\.json$/.test(f)).sort()).toEqual(['part-0.json', 'part-1.json', 'part-2.json', 'part-3.json']);
    const merged = JSON.parse(readFileSync(join(out, 'gap.json'), 'utf8').trim()) as Record<string, unknown>;
    const single = gapbcfw('gap', model, `horse:${horse}`, '--json');
    const { seconds: _s, ...exact } = single;
    expect(merged).toEqual(exact); // every number to the last bit
    expect(merged.n).toBe(30);
    expect(merged.gap).toEqual(expect.any(Number));
    // Each shard ran as its own array task (its output file: gap-shards-JOB_TASK.out).
    expect(readdirSync(scriptsDir).filter((f) => /^gap-shards-\d+_\d\.out$/.test(f)).map((f) => f.slice(-5, -4)).sort()).toEqual(['0', '1', '2', '3']);
  }, 300_000);

  it('a lambda grid as an array, merged into one table and a figure', () => {
    const out = join(work, 'grid');
    mkdirSync(out);
    shell(page.blocks[1]!.join('\n'), scriptsDir, { HORSE: horse, OUT: out, MAX_PASSES: '30' });
    const rows = readFileSync(join(out, 'grid.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => r.lambda).sort()).toEqual([1e-4, 1e-3, 1e-2, 1e-1]);
    for (const r of rows) {
      expect(r.method).toBe('bcfw, uniform sampling');
      expect(r.testError).toEqual(expect.any(Number));
    }
    expect(readdirSync(out).filter((f) => f.startsWith('model-')).sort()).toEqual(['model-1e-1.gbm', 'model-1e-2.gbm', 'model-1e-3.gbm', 'model-1e-4.gbm']);
    const plot = JSON.parse(readFileSync(join(out, 'grid-plot.json'), 'utf8')) as Record<string, unknown>;
    expect(plot).toMatchObject({ x: 'lambda', y: 'testError', rows: 4 });
    expect(readFileSync(join(out, 'grid.svg'), 'utf8')).toMatch(/^<svg/);
  }, 300_000);

  it('scancel (SIGTERM): the run writes its model and checkpoint and exits 143; resubmitted, it resumes from the checkpoint', async () => {
    const out = join(work, 'train');
    mkdirSync(out);
    const [submit, cancel, resubmit] = page.blocks[2]!;
    expect([submit, cancel, resubmit]).toEqual(['job=$(sbatch --parsable train-resumable.sbatch)', 'scancel $job', 'sbatch --wait train-resumable.sbatch']);
    const vars = { HORSE: horse, OUT: out, MAX_PASSES: '100000' };
    const job = shell(`${submit}; echo $job`, scriptsDir, vars).trim();
    const checkpoint = join(out, 'train.gbc');
    await until('a checkpoint of 10 passes', () => existsSync(checkpoint) && readCheckpoint(checkpoint).meta.passes >= 10);
    shell(cancel!, scriptsDir, { ...vars, job });
    await until('the cancelled job to end', () => ['CANCELLED', 'COMPLETED', 'FAILED'].includes(jobField(job, 'JobState') ?? ''));
    expect(jobField(job, 'JobState')).toBe('CANCELLED');
    expect(jobField(job, 'ExitCode')).toBe('143:0'); // gapbcfw's own status after SIGTERM, not a kill
    const log = readFileSync(join(scriptsDir, `train-${job}.out`), 'utf8');
    expect(log).toMatch(/interrupted by SIGTERM/);
    // The model: the certified iterate of the last pass, its gap recomputed from the file.
    const stopped = readCheckpoint(checkpoint).meta.passes;
    expect(stopped).toBeGreaterThanOrEqual(10);
    const saved = loadModel(join(out, 'model.gbm'));
    expect(saved.training.stopReason).toBe('aborted');
    expect(saved.training.passes).toBe(stopped);
    const evaluated = gapbcfw('eval', join(out, 'model.gbm'), `horse:${horse}`, '--part', 'train', '--json');
    expect(evaluated.gap).toEqual(expect.any(Number));
    expect(evaluated.dual).toBe(saved.dual);
    // Resubmitted with a cap a little further: it resumes at the checkpoint's pass and runs to the cap.
    const cap = stopped + 15;
    shell(resubmit!, scriptsDir, { ...vars, MAX_PASSES: String(cap) });
    const trace = readFileSync(join(out, 'trace.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { pass: number });
    const passes = trace.map((e) => e.pass);
    const resumedAt = passes.findIndex((p, k) => k > 0 && p < passes[k - 1]!);
    expect(resumedAt, 'the resumed run appends to the trace, continuing its passes').toBe(-1);
    expect(passes.at(-1)).toBe(cap);
    expect(passes).toContain(stopped + 1);
    expect(readCheckpoint(checkpoint).meta.passes).toBe(cap);
    expect(loadModel(join(out, 'model.gbm')).training.passes).toBe(cap);
  }, 300_000);
});
