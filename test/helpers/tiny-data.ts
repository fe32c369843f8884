/**
 * Tiny data sets of every data kind, written deterministically into a folder (the same bytes on every call):
 * what the CLI tests and the model-file fixtures run on. Each writer returns the `KIND:PATH` of its set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { Rng } from '../../src/core/rng.js';
import { prepareHorse } from '../../src/data/horse.js';
import { matFile } from './matfile-writer.js';

/** `ocr:FILE`: 12 words of 2-4 letters from {a, b, c} in folds 0 (6 words) and 1 (6 words); letter images are noisy stripes. */
export function writeTinyOcr(dir: string): string {
  const rng = new Rng(7);
  const lines: string[] = [];
  let id = 1;
  for (let word = 0; word < 12; word++) {
    const T = 2 + rng.int(3);
    for (let t = 0; t < T; t++) {
      const letter = rng.int(3);
      const pixels = Array.from({ length: 128 }, (_, p) => ((p % 8) % 3 === letter) !== (rng.next() < 0.1) ? 1 : 0);
      const next = t + 1 < T ? id + 1 : -1;
      lines.push([id, 'abc'[letter], next, word + 1, t + 1, word < 6 ? 0 : 1, ...pixels, ''].join('\t'));
      id++;
    }
  }
  const file = join(dir, 'letter.data');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return `ocr:${file}`;
}

/** `libsvm:FILE` (+ `FILE.t`): 3 classes in 4 dimensions, 30 training and 15 test rows around class centres. */
export function writeTinyLibsvm(dir: string): { train: string; test: string } {
  const rng = new Rng(11);
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const c = i % 3;
      const x = [1, 2, 3, 4].map((j) => `${j}:${((j === c + 1 ? 2 : 0) + rng.next() - 0.5).toFixed(3)}`);
      return `${c + 1} ${x.join(' ')}`;
    }).join('\n');
  const file = join(dir, 'tiny.svm');
  writeFileSync(file, `${rows(30)}\n`);
  writeFileSync(`${file}.t`, `${rows(15)}\n`);
  return { train: `libsvm:${file}`, test: `libsvm:${file}.t` };
}

const CONLL_SENTENCES = [
  'He PRP B-NP|reckons VBZ B-VP|the DT B-NP|current JJ I-NP|account NN I-NP|deficit NN I-NP|will MD B-VP|narrow VB I-VP|. . O',
  'The DT B-NP|house NN I-NP|rose VBD B-VP|in IN B-PP|value NN B-NP|. . O',
  'Confidence NN B-NP|in IN B-PP|the DT B-NP|pound NN I-NP|is VBZ B-VP|widely RB I-VP|expected VBN I-VP|. . O',
  'Rockwell NNP B-NP|said VBD B-VP|the DT B-NP|agreement NN I-NP|calls VBZ B-VP|for IN B-PP|it PRP B-NP|. . O',
  'The DT B-NP|company NN I-NP|reported VBD B-VP|a DT B-NP|loss NN I-NP|. . O',
  'Analysts NNS B-NP|expect VBP B-VP|the DT B-NP|trade NN I-NP|deficit NN I-NP|to TO B-VP|rise VB I-VP|. . O',
  'It PRP B-NP|was VBD B-VP|the DT B-NP|first JJ I-NP|time NN I-NP|. . O',
  'Prices NNS B-NP|fell VBD B-VP|in IN B-PP|the DT B-NP|market NN I-NP|. . O',
];

/** `conll:DIR` with train.txt (the first 6 sentences) and test.txt (the last 2). */
export function writeTinyConll(dir: string): string {
  const folder = join(dir, 'conll');
  mkdirSync(folder, { recursive: true });
  const text = (ss: string[]) => ss.map((s) => `${s.split('|').join('\n')}\n`).join('\n');
  writeFileSync(join(folder, 'train.txt'), text(CONLL_SENTENCES.slice(0, 6)));
  writeFileSync(join(folder, 'test.txt'), text(CONLL_SENTENCES.slice(6)));
  return `conll:${folder}`;
}

/** A Weizmann-layout folder (rgb/ at twice the mask's size, like the real data); masks are a white disc. */
export async function writeTinyWeizmann(root: string, count: number): Promise<void> {
  mkdirSync(join(root, 'rgb'), { recursive: true });
  mkdirSync(join(root, 'figure_ground'), { recursive: true });
  const W = 64;
  const H = 48;
  for (let k = 1; k <= count; k++) {
    const rgb = Buffer.alloc(4 * W * H * 3);
    const mask = Buffer.alloc(W * H);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const inside = (x - 30 - k) ** 2 + (y - 24) ** 2 < 15 ** 2;
        mask[y * W + x] = inside ? 255 : 0;
        for (const [dy, dx] of [[0, 0], [0, 1], [1, 0], [1, 1]] as const) {
          const noise = ((x * 31 + y * 17 + dx * 7 + dy * 3 + k) % 23) - 11;
          rgb.set(inside ? [150 + noise, 90 + noise, 40] : [40, 120 + noise, 60 + noise], 3 * ((2 * y + dy) * 2 * W + 2 * x + dx));
        }
      }
    }
    const name = `horse00${k}.jpg`;
    await sharp(rgb, { raw: { width: 2 * W, height: 2 * H, channels: 3 } }).jpeg().toFile(join(root, 'rgb', name));
    await sharp(mask, { raw: { width: W, height: H, channels: 1 } }).jpeg({ quality: 95 }).toFile(join(root, 'figure_ground', name));
  }
}

/** `horse:DIR`: 4 tiny Weizmann-layout images prepared (2 train, 2 test; 30 superpixels, small codebooks). */
export async function writeTinyHorse(dir: string): Promise<string> {
  const root = join(dir, 'weizmann');
  await writeTinyWeizmann(root, 4);
  const out = join(dir, 'horse');
  await prepareHorse(root, out, { trainSize: 2, superpixels: 30, colourWords: 8, gradientWords: 8 });
  return `horse:${out}`;
}

/**
 * `lsp:DIR`: `count` 48 x 64 images (a bright figure on a dark, noisy background) with joints.mat (3 x 14 x count,
 * the LSP layout); the joints are a stick figure shifted per image.
 */
export async function writeTinyLsp(dir: string, count = 12): Promise<string> {
  const folder = join(dir, 'lsp');
  mkdirSync(join(folder, 'images'), { recursive: true });
  const W = 48;
  const H = 64;
  // A standing figure (x, y), LSP joint order: R ankle, R knee, R hip, L hip, L knee, L ankle, R wrist, R elbow,
  // R shoulder, L shoulder, L elbow, L wrist, neck, head top.
  const figure: [number, number][] = [[18, 58], [19, 46], [20, 34], [28, 34], [29, 46], [30, 58], [12, 34], [14, 26], [18, 18], [30, 18], [34, 26], [36, 34], [24, 15], [24, 6]];
  const joints: number[] = [];
  const rng = new Rng(3);
  for (let i = 0; i < count; i++) {
    const sx = (i % 5) - 2;
    const sy = (i % 3) - 1;
    const px = Buffer.alloc(W * H * 3);
    for (let p = 0; p < W * H; p++) px.fill(20 + rng.int(30), 3 * p, 3 * p + 3);
    const stroke = (a: [number, number], b: [number, number]) => {
      for (let s = 0; s <= 20; s++) {
        const x = Math.round(a[0] + ((b[0] - a[0]) * s) / 20) + sx;
        const y = Math.round(a[1] + ((b[1] - a[1]) * s) / 20) + sy;
        for (let d = -1; d <= 1; d++) if (x + d >= 0 && x + d < W && y >= 0 && y < H) px.fill(230, 3 * (y * W + x + d), 3 * (y * W + x + d) + 3);
      }
    };
    for (const [a, b] of [[0, 1], [1, 2], [3, 4], [4, 5], [6, 7], [7, 8], [9, 10], [10, 11], [12, 13], [8, 9], [2, 3], [12, 8]] as const) stroke(figure[a]!, figure[b]!);
    await sharp(px, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 95 }).toFile(join(folder, 'images', `im${String(i + 1).padStart(4, '0')}.jpg`));
    // column-major 3 x 14 x count: (x, y, flag) per joint; 1-based pixel coordinates
    for (const [x, y] of figure) joints.push(x + sx + 1, y + sy + 1, 0);
  }
  writeFileSync(join(folder, 'joints.mat'), matFile([{ name: 'joints', dims: [3, 14, count], values: joints }]));
  return `lsp:${folder}`;
}

const HANSARDS: [string, string, string][] = [
  ['the house rose', 'la chambre se leve', '0-0 1-1 3-2'],
  ['yes', 'oui', '0-0'],
  ['the minister said', 'le ministre a dit', '0-0 1-1 2-2 3-2-P'],
  ['thank you', 'merci', '0-0 0-1-P'],
  ['the government', 'le gouvernement', '0-0 1-1'],
  ['the house', 'la chambre', '0-0 1-1'],
  ['the minister rose', 'le ministre se leve', '0-0 1-1 3-2'],
  ['government said yes', 'gouvernement a dit oui', '0-0 1-1 2-1 3-2'],
  ['the house said', 'la chambre a dit', '0-0 1-1 2-2 3-2-P'],
  ['thank the minister', 'merci le ministre', '0-0 1-1 2-2'],
];

/**
 * `alignment:DIR` in the staged Hansards layout: test/ (8 pairs) and trial/ (2 pairs) with sure and possible
 * links (French index first, as in the staged files), and a two-line unlabelled train_sample/.
 */
export function writeTinyHansards(dir: string): string {
  const folder = join(dir, 'hansards');
  const write = (name: string, rows: [string, string, string][]) => {
    mkdirSync(join(folder, name), { recursive: true });
    const wrap = (s: string, k: number) => `<s snum=${String(k + 1).padStart(4, '0')}> ${s} </s>`;
    writeFileSync(join(folder, name, `${name}.e`), `${rows.map((r, k) => wrap(r[0], k)).join('\n')}\n`);
    writeFileSync(join(folder, name, `${name}.f`), `${rows.map((r, k) => wrap(r[1], k)).join('\n')}\n`);
    writeFileSync(join(folder, name, `${name}.align`), `${rows.map((r) => r[2]).join('\n')}\n`);
  };
  write('test', HANSARDS.slice(0, 8));
  write('trial', HANSARDS.slice(8));
  mkdirSync(join(folder, 'train_sample'), { recursive: true });
  writeFileSync(join(folder, 'train_sample', 'sample.e'), 'the house rose\nthe minister\n');
  writeFileSync(join(folder, 'train_sample', 'sample.f'), 'la chambre se leve\nle ministre\n');
  return `alignment:${folder}`;
}

/**
 * A tiny `graph:` set: 3-label graphs of 3-7 nodes (trees, and every third one closed into a loop, small enough for
 * exact enumeration), whose labels the noisy node features tell, with a test file.
 */
export function writeTinyGraph(dir: string): { train: string; test: string } {
  const rng = new Rng(13);
  const graphs = (n: number) =>
    Array.from({ length: n }, (_, g) => {
      const N = 3 + (g % 5);
      const labels = Array.from({ length: N }, () => rng.int(3));
      const nodes = labels.map((k) => [0, 1, 2].map((j) => +((j === k ? 1 : 0) + rng.next() * 0.8 - 0.4).toFixed(3)));
      const edges = Array.from({ length: N - 1 }, (_, i) => [i, i + 1]);
      if (g % 3 === 0) edges.push([0, N - 1]);
      return JSON.stringify({ name: `g${g}`, nodes, edges, labels });
    }).join('\n');
  const file = join(dir, 'tiny-graph.jsonl');
  writeFileSync(file, `${graphs(20)}\n`);
  writeFileSync(`${file}.t`, `${graphs(8)}\n`);
  return { train: `graph:${file}`, test: `graph:${file}.t` };
}

/** A tiny `multilabel:` set: 3 labels driven by 4 noisy features (some rows without labels), with a test file. */
export function writeTinyMultilabel(dir: string): { train: string; test: string } {
  const rng = new Rng(17);
  const rows = (n: number) =>
    Array.from({ length: n }, () => {
      const x = [1, 2, 3, 4].map(() => rng.next() * 2 - 1);
      const labels = [0, 1, 2].filter((l) => x[l]! + 0.3 * x[3]! > 0.2);
      return `${labels.join(',')}${labels.length ? ' ' : ''}${x.map((v, j) => `${j + 1}:${v.toFixed(3)}`).join(' ')}`;
    }).join('\n');
  const file = join(dir, 'tiny-multilabel.svm');
  writeFileSync(file, `${rows(30)}\n`);
  writeFileSync(`${file}.t`, `${rows(12)}\n`);
  return { train: `multilabel:${file}`, test: `multilabel:${file}.t` };
}
