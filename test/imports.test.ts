// The module graph of src/ (and kernels/): no import cycles, not even through `import type` lines (which the
// compiler erases); the folders are floors, each importing only from the floors below it (FLOORS), and the library
// never imports the CLI (only src/cli/ itself does).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative imports of a file (static `import`/`export ... from` and dynamic `import('...')`), as absolute .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const statements = [...text.matchAll(/(?:^|\n)\s*((?:import|export)\s[^;]*?from\s+'(\.[^']+)')/g)];
  const specs = [...statements.map((m) => m[2]!), ...[...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1]!)];
  return specs.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

const files = [...sources(join(root, 'src')), ...sources(join(root, 'kernels'))];
const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => files.includes(t))]));
const name = (f: string) => relative(root, f);

/**
 * The floors of src/ (DESIGN.md, layout): each folder with the folders it may import from. `core` is the ground (the
 * seams: Problem, StructuredModel, Dataset, batch and scoring-backend types, errors, vectors, rng); the entry points
 * (src/*.ts, the package's faces) and the CLI sit on top.
 */
const FLOORS: Record<string, readonly string[]> = {
  core: [],
  native: ['core'],
  io: ['core'],
  kernels: ['core', 'native'],
  engine: ['core', 'native', 'io', 'kernels'],
  models: ['core', 'native', 'kernels', 'engine'],
  data: ['core', 'native', 'io', 'models'],
  sampling: ['core'],
  cache: ['core'],
  solvers: ['core', 'native', 'io', 'engine', 'sampling', 'cache'],
  path: ['core', 'io', 'solvers'],
  eval: ['core'],
  plot: ['core', 'io', 'models'],
  'multiclass-fw': ['core', 'io', 'data', 'solvers'],
  tasks: ['core', 'native', 'io', 'kernels', 'engine', 'models', 'data', 'sampling', 'cache', 'solvers', 'path', 'eval', 'plot', 'multiclass-fw'],
};
/**
 * The upward imports that stay, each with its reason (also written at the import):
 * - a path file embeds the model it was computed for, in the model-file header that tasks/ own (task, spec and task
 *   fields), so path/path-file.ts reads and writes that part with the tasks' codec.
 */
const UPWARD: readonly string[] = ['src/path/path-file.ts -> src/tasks/model.ts', 'src/path/path-file.ts -> src/tasks/types.ts'];

/** The floor of a source file: its folder under src/ (kernels/ is one), or undefined for the entry points and the CLI. */
function floorOf(f: string): string | undefined {
  const parts = relative(root, f).split('/');
  if (parts[0] === 'kernels') return 'kernels';
  return parts.length > 2 && parts[1] !== 'cli' ? parts[1] : undefined;
}

describe('module graph of src/', () => {
  it('has every relative import resolved to a source file', () => {
    const missing = files.flatMap((f) => importsOf(f).filter((t) => !files.includes(t) && !t.includes('node_modules')).map((t) => `${name(f)} -> ${name(t)}`));
    expect(missing).toEqual([]);
    expect(files.length).toBeGreaterThan(50);
  });

  it('has no import cycle, type-only imports included', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      stack.push(f);
      for (const t of graph.get(f)!) {
        if (state.get(t) === 'open') cycles.push([...stack.slice(stack.indexOf(t)), t].map(name).join(' -> '));
        else if (!state.has(t)) visit(t);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('imports only from the floors below each folder, except the listed upward imports', () => {
    expect(Object.keys(FLOORS).sort()).toEqual([...new Set(files.map(floorOf).filter((x) => x !== undefined))].sort());
    const upward = files.flatMap((f) => {
      const from = floorOf(f);
      if (from === undefined) return [];
      return graph.get(f)!.filter((t) => {
        const to = floorOf(t);
        return to !== from && (to === undefined || !FLOORS[from]!.includes(to));
      }).map((t) => `${name(f)} -> ${name(t)}`);
    });
    expect([...new Set(upward)].sort()).toEqual([...UPWARD].sort());
    expect(UPWARD.length).toBeLessThanOrEqual(2);
  });

  it('no file outside src/cli/ imports src/cli/', () => {
    const cli = join(root, 'src', 'cli');
    const offenders = files.filter((f) => !f.startsWith(cli)).flatMap((f) => graph.get(f)!.filter((t) => t.startsWith(cli)).map((t) => `${name(f)} -> ${name(t)}`));
    expect(offenders).toEqual([]);
  });
});
