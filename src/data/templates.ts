/**
 * CoNLL column files and their attribute templates (`conll-columns:FILE`).
 *
 * A column file has one token per line, the word in column 1 and the tag in the last column (or `--tag-column
 * N`), columns separated by tabs when the line has a tab, else by runs of spaces; lines holding only whitespace
 * separate sentences. Every line of a file has the same number of columns.
 *
 * A template is one line: `NAME[OFFSET]`, or several joined by `|`, or `bias`. NAME is `w` (the word), `lower`
 * (the word lower-cased), `shape` (each upper-case letter as A, lower-case as a, digit as 0, other characters
 * kept, runs of one symbol collapsed: `McDonald's` -> `AaAa'a`), `pre1`..`pre4` and `suf1`..`suf4` (the word's
 * first or last 1-4 characters; none when the word is shorter) or `c2`, `c3`, ... (column 2, 3, ... of the file).
 * OFFSET is the token's position relative to the current one. The attribute is the template, `=`, and its values
 * joined by a space, e.g. `w[-1]|w[0]=the pound`; a template reaching outside the sentence gives none (as in
 * CRFsuite). `#` starts a comment; blank lines are ignored.
 *
 * The default set: `bias`, and a -2..2 window of each of w, lower, shape, pre1-4, suf1-4 and every column
 * between the word and the tag.
 * @module
 */
import { FormatError, InputError } from '../core/errors.js';
import { lineBlocks, type AttributeSequence } from './seq.js';
import { textLines } from './paths.js';

/** One column file sentence: its rows of fields (the tag column included when the file has it). */
export interface ColumnSentence {
  rows: string[][];
  /** 1-based line of the first token. */
  line: number;
}

/** Parses a column file into sentences. @throws FormatError with file and line for a row of another width, or an empty file. */
export function parseColumnFile(text: string, file: string): ColumnSentence[] {
  let width = 0;
  return lineBlocks(text, file, 'no tokens: expected WORD ... TAG lines').map((block) => ({
    line: block[0]!.lineNo,
    rows: block.map(({ line, lineNo }) => {
      const row = splitColumns(line);
      if (width === 0) width = row.length;
      else if (row.length !== width) throw new FormatError(`expected ${width} columns like the first token line, found ${row.length}`, file, lineNo);
      return row;
    }),
  }));
}

/** A line's fields: tab-separated when it has a tab (empty edge fields dropped), else separated by whitespace. */
export function splitColumns(line: string): string[] {
  if (line.includes('\t')) return line.split('\t').map((f) => f.trim()).filter((f, j, all) => f !== '' || (j > 0 && j < all.length - 1));
  return line.trim().split(/\s+/);
}

/** A parsed template: its text (the attribute prefix) and parts; `bias` has none. */
export interface Template {
  readonly name: string;
  readonly parts: readonly { readonly field: string; readonly offset: number }[];
}

const FIELD_RE = /^(w|lower|shape|pre[1-4]|suf[1-4]|c([2-9]|[1-9]\d+))\[(-?\d+)\]$/;

/** Parses template lines (see the module documentation). @throws FormatError naming `file` and the line of a bad template. */
export function parseTemplates(text: string, file: string): Template[] {
  const out: Template[] = [];
  for (const { line, lineNo } of textLines(text)) {
    const body = line.replace(/#.*/, '').trim();
    if (body === '') continue;
    out.push(parseTemplate(body, file, lineNo));
  }
  if (out.length === 0) throw new FormatError('no templates', file, 1);
  return out;
}

function parseTemplate(body: string, file: string, lineNo: number): Template {
  if (body === 'bias') return { name: 'bias', parts: [] };
  const parts = body.split('|').map((p) => {
    const m = FIELD_RE.exec(p.trim());
    if (!m) throw new FormatError(`bad template part ${JSON.stringify(p)}: expected NAME[OFFSET] with NAME one of w, lower, shape, pre1-4, suf1-4, c2, c3, ... (or the line 'bias')`, file, lineNo);
    return { field: m[1]!, offset: Number(m[3]) };
  });
  return { name: parts.map((p) => `${p.field}[${p.offset}]`).join('|'), parts };
}

/** The default templates for a file whose words are column 1 and tags column `tagColumn` (1-based). */
export function defaultTemplates(tagColumn: number): Template[] {
  const fields = ['w', 'lower', 'shape', 'pre1', 'pre2', 'pre3', 'pre4', 'suf1', 'suf2', 'suf3', 'suf4'];
  for (let c = 2; c < tagColumn; c++) fields.push(`c${c}`);
  const out: Template[] = [{ name: 'bias', parts: [] }];
  for (const field of fields) for (let offset = -2; offset <= 2; offset++) out.push({ name: `${field}[${offset}]`, parts: [{ field, offset }] });
  return out;
}

/** The templates as text, one per line (what a model file keeps, and what `--template` reads). */
export function templatesText(templates: readonly Template[]): string {
  return templates.map((t) => t.name).join('\n');
}

/** The word shape: A for upper-case letters, a for lower-case, 0 for digits, others kept; runs collapsed. */
export function wordShape(word: string): string {
  let out = '';
  let prev = '';
  for (const ch of word) {
    const s = /\p{Lu}/u.test(ch) ? 'A' : /\p{Ll}/u.test(ch) ? 'a' : /\p{Nd}/u.test(ch) ? '0' : ch;
    if (s !== prev) out += s;
    prev = s;
  }
  return out;
}

/** The value of a field for a row (undefined: the field gives no attribute, e.g. a prefix longer than the word). */
function fieldValue(field: string, row: readonly string[]): string | undefined {
  const word = row[0]!;
  switch (field) {
    case 'w':
      return word;
    case 'lower':
      return word.toLowerCase();
    case 'shape':
      return wordShape(word);
    default: {
      const n = Number(field.slice(3));
      if (field.startsWith('pre') || field.startsWith('suf')) {
        const chars = [...word];
        if (chars.length < n) return undefined;
        return (field.startsWith('pre') ? chars.slice(0, n) : chars.slice(chars.length - n)).join('');
      }
      return row[Number(field.slice(1)) - 1];
    }
  }
}

/**
 * The attributes of a sentence's tokens by the templates: `out[t]` in template order. `rows` hold the file's
 * columns (a cN beyond them is an InputError naming the template).
 */
export function templateAttributes(templates: readonly Template[], rows: readonly (readonly string[])[]): string[][] {
  const T = rows.length;
  const width = rows[0]?.length ?? 0;
  for (const tpl of templates) {
    for (const p of tpl.parts) {
      if (p.field.startsWith('c') && Number(p.field.slice(1)) > width) throw new InputError(`template ${tpl.name} reads column ${p.field.slice(1)}, but the feature columns are 1..${width}`);
    }
  }
  const out: string[][] = new Array(T);
  for (let t = 0; t < T; t++) {
    const attrs: string[] = [];
    for (const tpl of templates) {
      if (tpl.parts.length === 0) {
        attrs.push('bias');
        continue;
      }
      let value = '';
      let ok = true;
      for (let p = 0; p < tpl.parts.length && ok; p++) {
        const { field, offset } = tpl.parts[p]!;
        const row = rows[t + offset];
        const v = row === undefined ? undefined : fieldValue(field, row);
        if (v === undefined) ok = false;
        else value += (p === 0 ? '' : ' ') + v;
      }
      if (ok) attrs.push(`${tpl.name}=${value}`);
    }
    out[t] = attrs;
  }
  return out;
}

/** @throws InputError when a template reads the tag column (its value is what the model predicts). */
export function checkTemplatesAvoid(templates: readonly Template[], tagColumn: number): void {
  for (const tpl of templates) {
    if (tpl.parts.some((p) => p.field === `c${tagColumn}`)) throw new InputError(`template ${tpl.name} reads the tag column ${tagColumn}`);
  }
}

/**
 * Column sentences as attribute sequences: the tag from column `tagColumn` (1-based) when `hasTags` (else the rows
 * are input to be tagged, without the tag column when it is the last), the attributes by the templates.
 */
export function columnSequences(sentences: readonly ColumnSentence[], templates: readonly Template[], tagColumn: number, hasTags: boolean): AttributeSequence[] {
  return sentences.map((s) => ({
    labels: s.rows.map((r) => (hasTags ? r[tagColumn - 1]! : '')),
    attributes: templateAttributes(templates, s.rows),
    weights: s.rows.map(() => null),
    line: s.line,
  }));
}
