// The module graph of src/ (and kernels/): no import cycles, not even through `import type` lines (which the
// compiler erases), and the library never imports the CLI (only src/cli/ itself does).
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

  it('no file outside src/cli/ imports src/cli/', () => {
    const cli = join(root, 'src', 'cli');
    const offenders = files.filter((f) => !f.startsWith(cli)).flatMap((f) => graph.get(f)!.filter((t) => t.startsWith(cli)).map((t) => `${name(f)} -> ${name(t)}`));
    expect(offenders).toEqual([]);
  });
});
