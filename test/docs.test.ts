/**
 * Documentation checks (issue 12): the API reference builds without warnings, the options page lists
 * every training flag, every `gapbcfw` command of the pages parses against its command's option table, the
 * quick start does what the README says, and the relative links of the Markdown pages resolve.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../src/cli/args.js';
import { COMMANDS, commandOf } from '../src/cli/main.js';
import { loadOptions } from '../src/cli/options.js';
import { isDataSpec, parseDataSpec } from '../src/tasks/index.js';
import { cli } from './helpers/capture.js';
import { documentedCommands, markdownFiles, runnable } from './helpers/docs.js';
import { needsData } from './helpers/skips.js';
import { currentOptionsPage } from '../scripts/docs-options.js';
import { SETTINGS } from '../src/solvers/settings.js';
import { MCFW_SETTINGS } from '../src/multiclass-fw/settings.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

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

  it('the settings tables of docs/options.md are generated from the library\'s settings tables and current', () => {
    const page = read('docs/options.md');
    expect(currentOptionsPage(page) === page, 'docs/options.md is stale: run npx tsx scripts/docs-options.ts').toBe(true);
    for (const o of [...SETTINGS, ...MCFW_SETTINGS]) expect(page).toContain(`| \`${o.key}\` |`);
  });

  it('docs/options.md lists every option of the train and path commands (their option tables)', () => {
    const page = read('docs/options.md');
    const flags = [...new Set(['train', 'path'].flatMap((name) => commandOf(name)!.options.map((o) => o.name)))].filter((f) => f !== 'help');
    expect(flags.length).toBeGreaterThan(30);
    const missing = flags.filter((f) => !new RegExp(`--${f}(?![a-z0-9-])`).test(page));
    expect(missing, `flags missing from docs/options.md: ${missing.map((f) => `--${f}`).join(', ')}`).toEqual([]);
  });

  it('every gapbcfw command of README.md and docs/ parses against its option table (the options apply to its data)', () => {
    const found: string[] = [];
    const bad: string[] = [];
    for (const file of markdownFiles()) {
      for (const { line, argv } of documentedCommands(file)) {
        found.push(line);
        try {
          if (argv[0] === 'help') {
            if (argv[1] !== undefined && !commandOf(argv[1])) throw new Error(`no command ${argv[1]} to help with`);
            continue;
          }
          const command = commandOf(argv[0]!);
          if (!command) throw new Error(`unknown command ${argv[0]}`);
          const args = parseArgs(command, argv.slice(1));
          const data = args.positionals.find((p) => isDataSpec(p));
          if (data && command.options.some((o) => o.name === 'split')) loadOptions(args, parseDataSpec(data).kind);
        } catch (e) {
          bad.push(`${file}: ${line}: ${(e as Error).message}`);
        }
      }
    }
    expect(found.length).toBeGreaterThan(60);
    for (const c of COMMANDS) if (c.name !== 'gap-merge') expect(found.some((l) => new RegExp(`^gapbcfw ${c.name}(\\s|$)`).test(l)), c.name).toBe(true);
    expect(bad).toEqual([]);
  });

  it('the README quick start runs as written and does what it says (demo gap <= 0.01; OCR-small gap <= 0.1, test error about 0.2)', needsData('ocr', 'letter.data.gz'), async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-quickstart-'));
    const quick = documentedCommands('README.md').slice(0, 5);
    expect(quick.map((c) => c.argv[0])).toEqual(['demo', 'train', 'eval', 'plot', 'demo']);
    const at = (argv: string[]) => runnable(argv, dir);
    const demo = await cli(...quick[0]!.argv, '--json', '--quiet');
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.json!.gap as number).toBeLessThanOrEqual(0.01);
    const train = await cli(...at(quick[1]!.argv), '--json', '--quiet');
    expect(train.code, train.stderr).toBe(0);
    expect(train.json!.gap as number).toBeLessThanOrEqual(0.1);
    expect(train.json!.testError as number).toBeGreaterThan(0.15);
    expect(train.json!.testError as number).toBeLessThan(0.25);
    const ev = await cli(...at(quick[2]!.argv), '--json');
    expect(ev.code, ev.stderr).toBe(0);
    expect(ev.json!.n).toBe(6251);
    expect(ev.json!.testError).toBe(train.json!.testError);
    const plot = await cli(...at(quick[3]!.argv), '--json');
    expect(plot.code, plot.stderr).toBe(0);
    expect(existsSync(join(dir, 'ocr-gap.png'))).toBe(true);
  }, 120_000);

  it('the TypeScript examples of README.md and docs/ use the API as it is (imports from the faces, settings, hooks)', () => {
    // Each ```ts block that imports gapbcfw is compiled against the sources (the faces mapped to src/): an import of
    // a name a face does not export, a setting that does not exist or a call with the wrong arguments fails. Names
    // the examples leave to the reader (`spec`, `records`) and top-level await are not errors of the API.
    const IGNORED = new Set([2304, 18004, 1309, 1375, 1378, 7006, 7005, 2580]);
    const faces: Record<string, string> = { gapbcfw: 'src/index.ts', 'gapbcfw/data': 'src/data/index.ts', 'gapbcfw/native': 'src/native/index.ts', 'gapbcfw/plot': 'src/plot/index.ts', 'gapbcfw/multiclass-fw': 'src/multiclass-fw/index.ts' };
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-snippets-'));
    const snippets: string[] = [];
    for (const file of markdownFiles()) {
      for (const m of read(file).matchAll(/```ts\n([\s\S]*?)```/g)) {
        if (!/from 'gapbcfw/.test(m[1]!)) continue;
        const code = m[1]!.replace(/from '(gapbcfw[^']*)'/g, (_all, face: string) => {
          if (!faces[face]) throw new Error(`${file}: no entry point '${face}'`);
          return `from '${join(root, faces[face]!).replace(/\.ts$/, '.js')}'`;
        });
        const name = join(dir, `snippet${snippets.length}.mts`);
        writeFileSync(name, `// ${file}\n${code}\nexport {};\n`);
        snippets.push(name);
      }
    }
    expect(snippets.length).toBeGreaterThanOrEqual(8);
    const program = ts.createProgram(snippets, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] });
    const problems = ts.getPreEmitDiagnostics(program)
      .filter((d) => d.file && snippets.includes(d.file.fileName) && !IGNORED.has(d.code))
      .map((d) => `${d.file!.text.split('\n')[0]}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    expect(problems).toEqual([]);
  }, 120_000);

  it("the README's StructuredModel paragraph names every member the interface requires (and the optional ones)", () => {
    const src = read('src/core/problem.ts');
    const body = src.slice(src.indexOf('export interface StructuredModel'), src.indexOf('\n}\n', src.indexOf('export interface StructuredModel')));
    const members = [...body.matchAll(/^  (?:readonly )?([a-zA-Z]+)(\??)[(:<]/gm)].map((m) => ({ name: m[1]!, optional: m[2] === '?' }));
    expect(members.filter((m) => !m.optional).length).toBeGreaterThanOrEqual(10);
    const readme = read('README.md');
    const paragraph = readme.slice(readme.indexOf('implementing `StructuredModel`'), readme.indexOf('## Command line'));
    expect(paragraph.length).toBeGreaterThan(100);
    for (const m of members) expect(paragraph, m.name).toContain(`\`${m.name}\``);
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
