import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../src/core/errors.js';
import { loadOcr, ocrLetterCount, ocrSplit, ocrToSequences, parseOcr, type OcrData, type OcrWord } from '../src/data/ocr.js';
import { dataPath, dataRoot, hasData } from '../src/data/paths.js';
import { expectFormatError } from './helpers/errors.js';
import { needsData } from './helpers/skips.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/bad/', import.meta.url));

// ---- tiny generator of OCR files ----------------------------------------------------------------

type Field = string | number;
interface GenLetter {
  id: number;
  letter: string;
  next: number;
  word: number;
  pos: number;
  fold: number;
  pixels: number[];
}

/** Deterministic pseudo-random 0/1 image. */
function image(seed: number): number[] {
  let s = (seed * 2654435761) >>> 0;
  return Array.from({ length: 128 }, () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s >>> 31;
  });
}

/** Letters of words given as strings, folds cycling, ids consecutive from 1. */
function genLetters(words: { text: string; fold: number }[]): GenLetter[] {
  const out: GenLetter[] = [];
  let id = 1;
  words.forEach((w, wi) => {
    for (let p = 0; p < w.text.length; p++, id++) {
      out.push({ id, letter: w.text[p]!, next: p + 1 < w.text.length ? id + 1 : -1, word: wi + 1, pos: p + 1, fold: w.fold, pixels: image(id) });
    }
  });
  return out;
}

const fieldsOf = (l: GenLetter): Field[] => [l.id, l.letter, l.next, l.word, l.pos, l.fold, ...l.pixels];
/** The file format: tab separated with a trailing tab. */
const render = (rows: Field[][]): string => rows.map((f) => f.join('\t') + '\t\n').join('');

const WORDS = [
  { text: 'cat', fold: 0 },
  { text: 'zebra', fold: 1 },
  { text: 'ox', fold: 0 },
  { text: 'quick', fold: 9 },
  { text: 'jump', fold: 4 },
];

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'gapbcfw-ocr-'));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function writeTmp(name: string, content: string | Uint8Array): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

/** Expects `fn` to throw a FormatError whose message mentions `:line` and matches `re`. */

describe('OCR loader on synthetic files', () => {
  const letters = genLetters(WORDS);
  const text = render(letters.map(fieldsOf));

  function checkWords(d: OcrData): void {
    expect(d.words.map((w) => w.id)).toEqual([1, 2, 3, 4, 5]);
    expect(d.words.map((w) => w.fold)).toEqual(WORDS.map((w) => w.fold));
    d.words.forEach((w, i) => {
      expect(Array.from(w.y, (c) => String.fromCharCode(97 + c)).join('')).toBe(WORDS[i]!.text);
      expect(w.pixels.length).toBe(w.y.length * 128);
    });
    // pixels of every letter come back exactly, in order
    const all = d.words.flatMap((w) => Array.from(w.pixels));
    expect(all).toEqual(letters.flatMap((l) => l.pixels));
  }

  it('round trips a plain file', () => {
    const d = loadOcr(writeTmp('plain.data', text));
    checkWords(d);
    expect(ocrLetterCount(d.words)).toBe(WORDS.reduce((s, w) => s + w.text.length, 0));
  });

  it('detects gzip by magic bytes, not by name', () => {
    checkWords(loadOcr(writeTmp('compressed-without-suffix.data', gzipSync(text))));
    checkWords(loadOcr(writeTmp('plain-with-gz-suffix.data.gz', text)));
  });

  it('accepts CRLF line ends, no trailing tab and no final newline', () => {
    const crlf = text.replace(/\n/g, '\r\n');
    checkWords(parseOcr(crlf));
    const noTab = letters.map((l) => fieldsOf(l).join('\t')).join('\n');
    checkWords(parseOcr(noTab));
  });

  it('converts to sequences with a bias feature', () => {
    const d = parseOcr(text);
    const ds = ocrToSequences(d.words);
    expect(ds.numFeatures).toBe(129);
    expect(ds.numLabels).toBe(26);
    expect(ds.labelNames).toHaveLength(26);
    expect(ds.labelNames[0]).toBe('a');
    expect(ds.labelNames[25]).toBe('z');
    const ex = ds.examples[1]!; // 'zebra'
    expect(ex.id).toBe(2);
    expect(Array.from(ex.y)).toEqual([25, 4, 1, 17, 0]);
    expect(ex.x.length).toBe(5 * 129);
    const first = letters[3]!; // first letter of 'zebra'
    expect(Array.from(ex.x.subarray(0, 128))).toEqual(first.pixels);
    for (let t = 0; t < 5; t++) expect(ex.x[t * 129 + 128]).toBe(1);

    const noBias = ocrToSequences(d.words, { bias: false });
    expect(noBias.numFeatures).toBe(128);
    expect(noBias.examples[1]!.x.length).toBe(5 * 128);
  });

  it('splits by fold', () => {
    const d = parseOcr(text);
    const ids = (ws: OcrWord[]): number[] => ws.map((w) => w.id);
    const small = ocrSplit(d, 'small');
    expect(ids(small.train)).toEqual([1, 3]);
    expect(ids(small.test)).toEqual([2, 4, 5]);
    const large = ocrSplit(d, 'large');
    expect(ids(large.train)).toEqual([2, 4, 5]);
    expect(ids(large.test)).toEqual([1, 3]);
    const all = ocrSplit(d.words, 'all');
    expect(ids(all.train)).toEqual([1, 2, 3, 4, 5]);
    expect(all.test).toEqual([]);
    const f9 = ocrSplit(d, 'fold:9');
    expect(ids(f9.test)).toEqual([4]);
    expect(ids(f9.train)).toEqual([1, 2, 3, 5]);
    expect(() => ocrSplit(d, 'fold:10')).toThrow(InputError);
    expect(() => ocrSplit(d, 'medium')).toThrow(/unknown OCR split/);
  });

  // ---- malformed input: each case names the 1-based line -------------------------------------------

  const rows = (): Field[][] => letters.map(fieldsOf);
  const withRow = (k: number, edit: (f: Field[]) => Field[]): string => {
    const r = rows();
    r[k] = edit([...r[k]!]);
    return render(r);
  };

  const cases: [string, () => string, number, RegExp][] = [
    ['too few fields', () => withRow(4, (f) => f.slice(0, 133)), 5, /expected 134 tab-separated fields.*found 133/],
    ['too many fields', () => withRow(0, (f) => [...f, 0, 0]), 1, /found 136/],
    ['letter not a-z', () => withRow(2, (f) => ((f[1] = 'T'), f)), 3, /letter.*a-z/],
    ['two-character letter', () => withRow(2, (f) => ((f[1] = 'ab'), f)), 3, /letter/],
    ['non-numeric id', () => withRow(6, (f) => ((f[0] = '7x'), f)), 7, /id.*not an integer/],
    ['non-numeric word_id', () => withRow(6, (f) => ((f[3] = ''), f)), 7, /word_id.*not an integer/],
    ['pixel not 0/1', () => withRow(7, (f) => ((f[6 + 40] = 2), f)), 8, /pixel 40.*0 or 1/],
    ['pixel not numeric', () => withRow(7, (f) => ((f[6 + 127] = 'x'), f)), 8, /pixel 127/],
    ['fold out of range', () => withRow(0, (f) => ((f[5] = 10), f)), 1, /fold.*0\.\.9/],
    ['negative fold', () => withRow(0, (f) => ((f[5] = -1), f)), 1, /fold/],
    ['broken next_id chain', () => withRow(3, (f) => ((f[2] = 99), f)), 5, /broken word chain: line 4 has next_id 99/],
    ['fold changes within a word', () => withRow(4, (f) => ((f[5] = 7), f)), 5, /fold 7 differs/],
    ['word_id changes within a word', () => withRow(4, (f) => ((f[3] = 42), f)), 5, /word_id 42 differs/],
    ['position out of order', () => withRow(5, (f) => ((f[4] = 9), f)), 6, /position/],
    ['word not terminated at EOF', () => render(rows().slice(0, -1)), letters.length - 1, /not terminated/],
    ['empty file', () => '', 1, /empty/],
    ['only blank lines', () => '\n\n\n', 3, /empty/],
  ];
  for (const [name, make, line, re] of cases) {
    it(`rejects: ${name} (line ${line})`, () => {
      const file = writeTmp(`bad-${name.replace(/\W+/g, '-')}.data`, make());
      const e = expectFormatError(() => loadOcr(file), line, re);
      expect(e.file).toBe(file);
      expect(e.message.startsWith(`${file}:${line}: `)).toBe(true);
    });
  }

  it('rejects truncated and corrupt gzip with a clear message', () => {
    const gz = gzipSync(text);
    const truncated = writeTmp('truncated.gz', gz.subarray(0, Math.floor(gz.length / 2)));
    expectFormatError(() => loadOcr(truncated), undefined, /corrupt or truncated gzip/);
    const corrupt = Buffer.from(gz);
    for (let i = 20; i < 40; i++) corrupt[i] = corrupt[i]! ^ 0xa5;
    const c = writeTmp('corrupt.gz', corrupt);
    const e = expectFormatError(() => loadOcr(c), undefined, /corrupt or truncated gzip/);
    expect(e.message).toContain(c);
  });

  it('reports a missing file as an InputError', () => {
    expect(() => loadOcr(join(tmp, 'does-not-exist.data'))).toThrow(InputError);
  });

  describe('fixture files', () => {
    const fx: [string, number | undefined, RegExp][] = [
      ['ocr-bad-field-count.data', 3, /fields/],
      ['ocr-bad-letter.data', 2, /letter/],
      ['ocr-bad-pixel.data', 4, /pixel/],
      ['ocr-broken-chain.data', 4, /broken word chain/],
      ['ocr-unterminated.data', 4, /not terminated/],
      ['ocr-truncated.data.gz', undefined, /gzip/],
    ];
    for (const [name, line, re] of fx) {
      it(name, () => {
        expectFormatError(() => loadOcr(join(FIXTURES, name)), line, re);
      });
    }
  });
});

describe('paths', () => {
  it('dataRoot honours GAPBCFW_DATA', () => {
    const old = process.env.GAPBCFW_DATA;
    try {
      process.env.GAPBCFW_DATA = tmp;
      expect(dataRoot()).toBe(tmp);
      expect(dataPath('ocr', 'x')).toBe(join(tmp, 'ocr', 'x'));
      writeTmp('present.txt', 'x');
      expect(hasData('present.txt')).toBe(true);
      expect(hasData('absent.txt')).toBe(false);
    } finally {
      if (old === undefined) delete process.env.GAPBCFW_DATA;
      else process.env.GAPBCFW_DATA = old;
    }
    if (process.env.GAPBCFW_DATA === undefined) {
      expect(dataRoot()).toBe(fileURLToPath(new URL('../../shared/data', import.meta.url)));
    }
  });
});

describe('OCR loader on the real letter.data.gz', needsData('ocr', 'letter.data.gz'), () => {
  let data: OcrData;
  beforeAll(() => {
    data = loadOcr(dataPath('ocr', 'letter.data.gz'));
  });

  it('has 6,877 words and 52,152 letters', () => {
    expect(data.words).toHaveLength(6877);
    expect(ocrLetterCount(data.words)).toBe(52152);
  });

  it('has the documented words per fold', () => {
    const perFold = new Array<number>(10).fill(0);
    for (const w of data.words) perFold[w.fold]!++;
    expect(perFold).toEqual([626, 704, 684, 698, 693, 651, 739, 717, 690, 675]);
  });

  it('has the standard small and large splits', () => {
    const small = ocrSplit(data, 'small');
    expect(small.train).toHaveLength(626);
    expect(small.test).toHaveLength(6251);
    expect(small.train.every((w) => w.fold === 0)).toBe(true);
    const large = ocrSplit(data, 'large');
    expect(large.train).toHaveLength(6251);
    expect(large.test).toHaveLength(626);
    expect(ocrSplit(data, 'fold:6').test).toHaveLength(739);
  });

  it('converts to sequences with D = 129, last feature 1, labels in 0..25', () => {
    const ds = ocrToSequences(ocrSplit(data, 'small').train);
    expect(ds.numFeatures).toBe(129);
    expect(ds.examples).toHaveLength(626);
    const seen = new Set<number>();
    for (const ex of ds.examples) {
      const T = ex.y.length;
      expect(ex.x.length).toBe(T * 129);
      for (let t = 0; t < T; t++) {
        expect(ex.x[t * 129 + 128]).toBe(1);
        const yt = ex.y[t]!;
        expect(yt).toBeGreaterThanOrEqual(0);
        expect(yt).toBeLessThan(26);
        seen.add(yt);
      }
      for (let i = 0; i < ex.x.length; i++) if (i % 129 !== 128 && ex.x[i] !== 0 && ex.x[i] !== 1) throw new Error('pixel not 0/1');
    }
    expect(seen.size).toBe(26);
  });

  it('word ids are unique and letters in every word are a-z', () => {
    expect(new Set(data.words.map((w) => w.id)).size).toBe(6877);
    for (const w of data.words) for (const c of w.y) if (c < 0 || c > 25) throw new Error(`label ${c}`);
  });
});
