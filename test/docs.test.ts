/**
 * Documentation checks (issue 12): the API reference builds without warnings, the options page lists
 * every training flag, and the relative links of the Markdown pages resolve.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** Every `--flag` a parseArgs options object in `file` defines (`name: { type: ... }` entries). */
function definedFlags(file: string): string[] {
  const flags = new Set<string>();
  for (const m of read(file).matchAll(/^\s*'?([a-z][a-z0-9-]*)'?\s*:\s*\{\s*type:\s*'(?:string|boolean)'/gm)) flags.add(m[1]!);
  return [...flags].sort();
}

/** Markdown files whose relative links are checked. */
function markdownFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory() && p !== 'docs/api' && p !== 'docs/figures') walk(p);
      else if (e.isFile() && e.name.endsWith('.md')) out.push(p);
    }
  };
  walk('docs');
  return out;
}

describe('documentation', () => {
  it('typedoc validates the public API with no warnings (documented, exported, links resolve)', () => {
    // typedoc.json turns on validation.notDocumented / notExported / invalidLink; warnings become errors here.
    const bin = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
    const r = spawnSync(process.execPath, [bin, '--emit', 'none', '--treatWarningsAsErrors', '--treatValidationWarningsAsErrors'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      timeout: 90_000,
    });
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.replace(/\x1b\[[0-9;]*m/g, '');
    expect(r.error, output).toBeUndefined();
    expect(output, 'typedoc reported problems').not.toMatch(/\[(warning|error)\]/);
    expect(r.status, output).toBe(0);
  });

  it('docs/options.md lists every training flag of src/cli/train-options.ts and src/cli/path.ts', () => {
    const page = read('docs/options.md');
    const flags = [...definedFlags('src/cli/train-options.ts'), ...definedFlags('src/cli/path.ts')];
    expect(flags.length).toBeGreaterThan(20); // the scan found the option objects
    const missing = flags.filter((f) => !new RegExp(`--${f}(?![a-z0-9-])`).test(page));
    expect(missing, `flags missing from docs/options.md: ${missing.map((f) => `--${f}`).join(', ')}`).toEqual([]);
  });

  it('has a page per model and the benchmark page with its generated section', () => {
    for (const m of ['chain', 'conll', 'segmentation', 'pose', 'matching', 'multiclass']) expect(existsSync(join(root, 'docs/models', `${m}.md`)), m).toBe(true);
    const bench = read('docs/benchmarks.md');
    expect(bench).toContain('<!-- bench:report:start -->');
    expect(bench).toContain('<!-- bench:report:end -->');
  });

  it('relative links in README.md and docs/**/*.md resolve (docs/api is generated and exempt)', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = read(file).replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/i.test(target)) continue; // anchors, http(s):, mailto:
        const path = resolve(root, dirname(file), decodeURIComponent(target));
        if (path.startsWith(join(root, 'docs', 'api'))) continue;
        if (!existsSync(path)) broken.push(`${file}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
