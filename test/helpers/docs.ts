// The `gapbcfw` commands written in README.md and docs/, read from the pages so that tests run them exactly as
// written: only the data file names of the pages are mapped to the real data sets ($GAPBCFW_DATA), and the
// files the commands write into a folder of the test.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataPath } from '../../src/data/paths.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** README.md and the Markdown pages of docs/ (docs/api and docs/figures excepted), as paths from the repository root. */
export function markdownFiles(): string[] {
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

/**
 * The `gapbcfw` command lines of the shell blocks of a page, as argument lists: `npx` and comments dropped, `\`
 * continuations joined, pipes and redirections cut off, quotes honoured.
 */
export function documentedCommands(file: string): { line: string; argv: string[] }[] {
  const out: { line: string; argv: string[] }[] = [];
  for (const block of readFileSync(join(root, file), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.replace(/\\\n\s*/g, ' ').split('\n')) {
      const at = raw.indexOf('gapbcfw ');
      if (at < 0 || raw.trimStart().startsWith('#')) continue;
      const line = raw.slice(at).replace(/\s+#.*$/, '');
      const words = [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
      const end = words.findIndex((w) => ['|', '<', '>', '&', ';', '&&', '2>'].includes(w));
      out.push({ line, argv: words.slice(1, end < 0 ? undefined : end) });
    }
  }
  return out;
}

/** The one documented command of `file` that starts with `start` (e.g. `train conll:`). @throws when not exactly one. */
export function documentedCommand(file: string, start: string): string[] {
  const found = documentedCommands(file).filter((c) => c.line.startsWith(`gapbcfw ${start}`));
  if (found.length !== 1) throw new Error(`${file}: ${found.length} commands start with 'gapbcfw ${start}'`);
  return found[0]!.argv;
}

/** The data files and folders the pages name, in the shared data folder. */
const DATA_FILES: Readonly<Record<string, string[]>> = {
  'letter.data.gz': ['ocr', 'letter.data.gz'],
  'conll2000/': ['conll2000'],
  'conll2000/test.txt': ['conll2000', 'test.txt'],
  'dna.scale': ['multiclass', 'dna', 'dna.scale'],
  'dna.scale.t': ['multiclass', 'dna', 'dna.scale.t'],
  'pendigits.scale': ['multiclass', 'pendigits', 'pendigits.scale'],
  'pendigits.scale.t': ['multiclass', 'pendigits', 'pendigits.scale.t'],
  'fashion_mnist_test/': ['multiclass', 'fashion_mnist_test'],
  'word_alignment_hansards/': ['word_alignment_hansards'],
  'lsp/': ['lsp'],
  'weizmann_horse_db/': ['weizmann_horse', 'weizmann_horse_db'],
  'yeast_train.svm': ['multilabel', 'yeast', 'yeast_train.svm'],
  'yeast_test.svm': ['multilabel', 'yeast', 'yeast_test.svm'],
  'scene_train.svm': ['multilabel', 'scene', 'scene_train.svm'],
  'scene_test.svm': ['multilabel', 'scene', 'scene_test.svm'],
  'conll2000/train.txt': ['conll2000', 'train.txt'],
  'ner_wnut17/wnut17train.conll': ['ner_wnut17', 'wnut17train.conll'],
  'ner_wnut17/emerging.dev.conll': ['ner_wnut17', 'emerging.dev.conll'],
  'ner_wnut17/emerging.test.annotated': ['ner_wnut17', 'emerging.test.annotated'],
};

/**
 * A documented command made runnable here: the data names of the pages (`ocr:letter.data.gz`, `conll2000/test.txt`)
 * become the real data sets, and the files it writes or reads back (models, traces, figures, checkpoints) live in
 * `dir`.
 */
export function runnable(argv: readonly string[], dir: string): string[] {
  return argv.map((a) => {
    const colon = a.indexOf(':');
    const kind = colon > 0 && /^[a-z-]+$/.test(a.slice(0, colon)) ? a.slice(0, colon + 1) : '';
    const name = a.slice(kind.length);
    const data = DATA_FILES[name];
    if (data) return `${kind}${dataPath(...data)}${name.endsWith('/') ? '/' : ''}`;
    // A data file the page's own commands write (python3 convert.py, scripts/graphs/edges.mjs): in dir too.
    if (kind && /\.jsonl$/.test(name) && !name.includes('/')) return `${kind}${join(dir, name)}`;
    if (!kind && /\.(gbm|gbp|gbc|jsonl|json|png|svg|txt|html)$/.test(a)) return join(dir, a);
    return a;
  });
}
