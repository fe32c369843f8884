/**
 * Attribute extraction for CoNLL-2000 chunking in the style of Sha & Pereira (2003) and the CRFsuite
 * chunking tutorial (the feature set of the BCFW papers' CoNLL experiments), an attribute dictionary, and
 * the compact per-token form the {@link SparseChainModel} reads.
 *
 * Templates (token t of a sentence of length T; `w[i]` is the word at t+i, `pos[i]` its POS tag):
 *
 * | template                  | what                                   |
 * |---------------------------|----------------------------------------|
 * | `bias`                    | a constant attribute on every token    |
 * | `w[-2]` .. `w[2]`         | word unigrams in a window of +-2       |
 * | `w[-1]\|w[0]`, `w[0]\|w[1]` | word bigrams                          |
 * | `pos[-2]` .. `pos[2]`     | POS unigrams in a window of +-2        |
 * | `pos[-2]\|pos[-1]`, `pos[-1]\|pos[0]`, `pos[0]\|pos[1]`, `pos[1]\|pos[2]` | POS bigrams |
 * | `pos[-2]\|pos[-1]\|pos[0]`, `pos[-1]\|pos[0]\|pos[1]`, `pos[0]\|pos[1]\|pos[2]` | POS trigrams |
 *
 * An attribute string is the template name, `=`, and the values joined by one space, e.g.
 * `w[-1]|w[0]=the pound` or `pos[0]|pos[1]|pos[2]=DT JJ NN` (CoNLL tokens never contain whitespace, so
 * the string is unambiguous). As in CRFsuite, a template that reaches outside the sentence produces no
 * attribute (no padding symbols); the chain model's first/last-state weights play the role of CRFsuite's
 * `__BOS__`/`__EOS__`. Words are used as written (no lower-casing).
 *
 * The dictionary maps the attributes seen at least `minFrequency` times in the training set to ids
 * 0..F-1 in order of first occurrence (so `bias` is id 0); attributes not in it are ignored. On
 * CoNLL-2000 train: F = 335,673 at minimum frequency 1, 117,202 at 2, 75,288 at 3 (the papers' setting,
 * d = 75,288*23 + 2*23 + 23^2 = 1,732,199 with our K = 23 tags, against their 1,643,026 with K = 22).
 */
import { check, InputError } from '../core/errors.js';
import type { SparseSequence } from '../models/sparse-chain.js';

/** One attribute template: which column (`w` word, `pos` POS tag) at which offset, for each part. */
export interface AttributeTemplate {
  /** The name used as the attribute prefix, e.g. `pos[-1]|pos[0]`. */
  readonly name: string;
  /** The parts: column and offset relative to the current token. Empty for `bias`. */
  readonly parts: readonly { readonly column: 'w' | 'pos'; readonly offset: number }[];
}

function template(...parts: [column: 'w' | 'pos', offset: number][]): AttributeTemplate {
  const name = parts.length === 0 ? 'bias' : parts.map(([c, o]) => `${c}[${o}]`).join('|');
  return { name, parts: parts.map(([column, offset]) => ({ column, offset })) };
}

/** The 20 templates of the CoNLL feature map, in extraction order (see the module documentation). */
export const CONLL_TEMPLATES: readonly AttributeTemplate[] = [
  template(),
  template(['w', -2]),
  template(['w', -1]),
  template(['w', 0]),
  template(['w', 1]),
  template(['w', 2]),
  template(['w', -1], ['w', 0]),
  template(['w', 0], ['w', 1]),
  template(['pos', -2]),
  template(['pos', -1]),
  template(['pos', 0]),
  template(['pos', 1]),
  template(['pos', 2]),
  template(['pos', -2], ['pos', -1]),
  template(['pos', -1], ['pos', 0]),
  template(['pos', 0], ['pos', 1]),
  template(['pos', 1], ['pos', 2]),
  template(['pos', -2], ['pos', -1], ['pos', 0]),
  template(['pos', -1], ['pos', 0], ['pos', 1]),
  template(['pos', 0], ['pos', 1], ['pos', 2]),
];

/** Identifier of this template set, stored in model files. */
export const CONLL_TEMPLATE_SET = 'sha-pereira-2003-crfsuite-v1';

/** Default minimum frequency: 3, which gives the papers' dimension (about 1.6 million) on CoNLL-2000. */
export const DEFAULT_MIN_FREQUENCY = 3;

/**
 * The attribute strings of every token of a sentence: `out[t]` lists token t's attributes in template
 * order, skipping templates that reach outside the sentence.
 */
export function conllAttributes(words: readonly string[], pos: readonly string[]): string[][] {
  check(words.length === pos.length, () => `got ${words.length} words but ${pos.length} POS tags`);
  const T = words.length;
  const out: string[][] = new Array(T);
  for (let t = 0; t < T; t++) {
    const attrs: string[] = [];
    for (const tpl of CONLL_TEMPLATES) {
      if (tpl.parts.length === 0) {
        attrs.push(tpl.name);
        continue;
      }
      let value = '';
      let inside = true;
      for (let p = 0; p < tpl.parts.length; p++) {
        const { column, offset } = tpl.parts[p]!;
        const i = t + offset;
        if (i < 0 || i >= T) {
          inside = false;
          break;
        }
        value += (p === 0 ? '' : ' ') + (column === 'w' ? words[i]! : pos[i]!);
      }
      if (inside) attrs.push(`${tpl.name}=${value}`);
    }
    out[t] = attrs;
  }
  return out;
}

/** The dictionaries built by {@link FeatureDictionary.fromJSON}, by the JSON object they were read from. */
const FROM_JSON = new WeakMap<object, FeatureDictionary>();

/**
 * The {@link CONLL_TEMPLATES} over interned column values: each word and tag of the dictionary's attributes has a small
 * id; a template's attribute is found by the packed ids of its parts (key = ((v_0) s_1 + v_1) s_2 + v_2, s the
 * columns' vocabulary sizes), in a dense table where the key space is small, else a map with integer keys.
 */
interface ConllTables {
  vocab: Record<ConllColumn, Map<string, number>>;
  /** The bias attribute's id (-1: not kept). */
  bias: number;
  /** Per template with parts: the columns (0 words, 1 tags), offsets and vocabulary sizes of its parts. */
  templates: { columns: Int8Array; offsets: Int32Array; sizes: Float64Array; dense: Int32Array | null; sparse: Map<number, number> | null }[];
}

type ConllColumn = 'w' | 'pos';

/** Largest key space kept as a dense table (4M entries, 16 MB). */
const DENSE_KEYS = 2 ** 22;

/** The JSON form of a {@link FeatureDictionary}, stored in model files. */
export interface FeatureDictionaryJSON {
  /** Template set identifier ({@link CONLL_TEMPLATE_SET}). */
  templates: string;
  /** Minimum training frequency used to build it. */
  minFrequency: number;
  /** Attribute strings; id = index. */
  attributes: string[];
}

/** Options of {@link FeatureDictionary.build}. */
export interface DictionaryOptions {
  /** Keep attributes seen at least this many times (tokens carrying them). Default {@link DEFAULT_MIN_FREQUENCY}. */
  minFrequency?: number;
  /** Template set identifier recorded in the dictionary. Default {@link CONLL_TEMPLATE_SET}. */
  templates?: string;
}

/**
 * Attribute strings <-> ids 0..F-1. Built on the training set; lookups of unseen attributes give -1 and
 * {@link FeatureDictionary.encode} drops them.
 */
export class FeatureDictionary {
  private readonly ids: Map<string, number>;
  private readonly names: readonly string[];
  private conll: ConllTables | undefined;

  private constructor(names: readonly string[], readonly minFrequency: number, readonly templates: string) {
    this.names = names;
    this.ids = new Map();
    for (let k = 0; k < names.length; k++) {
      if (this.ids.has(names[k]!)) throw new InputError(`attribute ${JSON.stringify(names[k])} appears twice in the dictionary`);
      this.ids.set(names[k]!, k);
    }
  }

  /**
   * Counts the attributes of the training sentences (one `string[][]` per sentence, as returned by
   * {@link conllAttributes}) and keeps those seen at least `minFrequency` times, ids in order of first occurrence.
   */
  static build(sentences: Iterable<readonly (readonly string[])[]>, options: DictionaryOptions = {}): FeatureDictionary {
    const minFrequency = options.minFrequency ?? DEFAULT_MIN_FREQUENCY;
    check(Number.isInteger(minFrequency) && minFrequency >= 1, `minFrequency must be a positive integer, got ${minFrequency}`);
    const counts = new Map<string, number>();
    for (const sentence of sentences) {
      for (const token of sentence) for (const a of token) counts.set(a, (counts.get(a) ?? 0) + 1);
    }
    const names: string[] = [];
    for (const [a, c] of counts) if (c >= minFrequency) names.push(a);
    return new FeatureDictionary(names, minFrequency, options.templates ?? CONLL_TEMPLATE_SET);
  }

  /** A dictionary with the given attributes (id = index). */
  static fromAttributes(attributes: readonly string[], options: DictionaryOptions = {}): FeatureDictionary {
    return new FeatureDictionary([...attributes], options.minFrequency ?? 1, options.templates ?? CONLL_TEMPLATE_SET);
  }

  /**
   * Reads the form written by {@link FeatureDictionary.toJSON} (`expectedTemplates` null: any template set).
   * @throws InputError when the value is malformed or uses another template set.
   */
  static fromJSON(value: unknown, expectedTemplates: string | null = CONLL_TEMPLATE_SET): FeatureDictionary {
    const v = value as Partial<FeatureDictionaryJSON> | null;
    if (v === null || typeof v !== 'object') throw new InputError('attribute dictionary: expected an object');
    if (typeof v.templates !== 'string') throw new InputError('attribute dictionary: templates must be a string');
    if (expectedTemplates !== null && v.templates !== expectedTemplates) {
      throw new InputError(`attribute dictionary uses templates ${JSON.stringify(v.templates)}, this version extracts ${JSON.stringify(expectedTemplates)}`);
    }
    if (!(Number.isInteger(v.minFrequency) && v.minFrequency! >= 1)) throw new InputError('attribute dictionary: minFrequency must be a positive integer');
    if (!Array.isArray(v.attributes) || !v.attributes.every((a) => typeof a === 'string')) throw new InputError('attribute dictionary: attributes must be an array of strings');
    // A model's dictionary is checked when its file is read and used again to tag: built once per JSON object.
    const known = FROM_JSON.get(v);
    if (known) return known;
    const d = new FeatureDictionary(v.attributes, v.minFrequency!, v.templates);
    FROM_JSON.set(v, d);
    return d;
  }

  /** Serialisable form (templates, minimum frequency, attribute names in id order), stored in model files. */
  toJSON(): FeatureDictionaryJSON {
    return { templates: this.templates, minFrequency: this.minFrequency, attributes: [...this.names] };
  }

  /** F, the number of attributes. */
  get size(): number {
    return this.names.length;
  }

  /** Id of an attribute, -1 when unseen. */
  id(attribute: string): number {
    return this.ids.get(attribute) ?? -1;
  }

  /** The attribute of an id. */
  attribute(id: number): string {
    const a = this.names[id];
    if (a === undefined) throw new InputError(`attribute id ${id} is outside 0..${this.names.length - 1}`);
    return a;
  }

  /**
   * The compact form of a CoNLL sentence's attributes by the {@link CONLL_TEMPLATES}: the same as
   * `encode(conllAttributes(words, pos))`, without building any attribute string: each word and tag is looked up once
   * (its id in the dictionary's vocabulary of that column), then every template's attribute by the packed ids of its
   * parts (see ConllTables). The hot path of tagging.
   */
  encodeConll(words: readonly string[], pos: readonly string[]): SparseSequence {
    check(words.length === pos.length, () => `got ${words.length} words but ${pos.length} POS tags`);
    const { vocab, bias, templates } = (this.conll ??= this.conllTables());
    const T = words.length;
    const columns = [new Int32Array(T), new Int32Array(T)]; // the value ids of words and tags (-1: not in any attribute)
    for (let t = 0; t < T; t++) {
      columns[0]![t] = vocab.w.get(words[t]!) ?? -1;
      columns[1]![t] = vocab.pos.get(pos[t]!) ?? -1;
    }
    const offsets = new Int32Array(T + 1);
    const ids = new Int32Array(T * CONLL_TEMPLATES.length);
    let nnz = 0;
    for (let t = 0; t < T; t++) {
      const start = nnz;
      if (bias >= 0) ids[nnz++] = bias;
      for (const { columns: c, offsets: o, sizes, dense, sparse } of templates) {
        let key = 0;
        for (let p = 0; p < c.length && key >= 0; p++) {
          const i = t + o[p]!;
          const v = i < 0 || i >= T ? -1 : columns[c[p]!]![i]!;
          key = v < 0 ? -1 : key * sizes[p]! + v;
        }
        if (key < 0) continue;
        const id = dense ? dense[key]! : (sparse!.get(key) ?? -1);
        if (id >= 0) ids[nnz++] = id;
      }
      if (nnz - start > 1) ids.subarray(start, nnz).sort();
      offsets[t + 1] = nnz;
    }
    return { offsets, ids: ids.slice(0, nnz) };
  }

  /** The tables of {@link encodeConll}, from the dictionary's attribute names (two passes: vocabularies, then keys). */
  private conllTables(): ConllTables {
    const index = new Map(CONLL_TEMPLATES.map((tpl, k) => [tpl.name, k]));
    const vocab: Record<ConllColumn, Map<string, number>> = { w: new Map(), pos: new Map() };
    const tables: (number | Int32Array | Map<number, number> | undefined)[] = CONLL_TEMPLATES.map(() => undefined);
    // Pass 1: each kept attribute's template and value ids (up to 3 parts), the values interned per column.
    const kept: number[] = [];
    const values = new Int32Array(3 * this.names.length);
    this.names.forEach((name, id) => {
      const eq = name.indexOf('=');
      const k = index.get(eq < 0 ? name : name.slice(0, eq));
      if (k === undefined) return;
      const parts = CONLL_TEMPLATES[k]!.parts;
      if (parts.length === 0) {
        tables[k] = id;
        return;
      }
      const vs = name.slice(eq + 1).split(' ');
      if (vs.length !== parts.length) return;
      parts.forEach(({ column }, p) => {
        const v = vocab[column];
        let vid = v.get(vs[p]!);
        if (vid === undefined) v.set(vs[p]!, (vid = v.size));
        values[3 * id + p] = vid;
      });
      kept.push(id, k);
    });
    // Pass 2: the packed keys, in dense tables where the key space is small.
    CONLL_TEMPLATES.forEach((tpl, k) => {
      if (tpl.parts.length === 0) return;
      const space = tpl.parts.reduce((n, { column }) => n * vocab[column].size, 1);
      tables[k] = space <= DENSE_KEYS ? new Int32Array(space).fill(-1) : new Map();
    });
    for (let q = 0; q < kept.length; q += 2) {
      const id = kept[q]!;
      const k = kept[q + 1]!;
      let key = 0;
      CONLL_TEMPLATES[k]!.parts.forEach(({ column }, p) => (key = key * vocab[column].size + values[3 * id + p]!));
      const table = tables[k] as Int32Array | Map<number, number>;
      if (table instanceof Int32Array) table[key] = id;
      else table.set(key, id);
    }
    // The order of CONLL_TEMPLATES is kept: a token's ids are sorted afterwards anyway.
    const templates = CONLL_TEMPLATES.flatMap(({ parts }, k) => {
      const table = tables[k];
      if (parts.length === 0 || table === undefined || typeof table === 'number') return [];
      return [{
        columns: Int8Array.from(parts, ({ column }) => (column === 'w' ? 0 : 1)),
        offsets: Int32Array.from(parts, ({ offset }) => offset),
        sizes: Float64Array.from(parts, ({ column }) => vocab[column].size),
        dense: table instanceof Int32Array ? table : null,
        sparse: table instanceof Map ? table : null,
      }];
    });
    const biasId = tables.find((table, k) => CONLL_TEMPLATES[k]!.parts.length === 0 && typeof table === 'number');
    return { vocab, bias: typeof biasId === 'number' ? biasId : -1, templates };
  }

  /**
   * The compact form of a sentence's attributes: token t has ids `ids[offsets[t] .. offsets[t+1])`,
   * ascending; unseen attributes are dropped; every attribute has value 1 (a repeated attribute is
   * counted as often as it appears).
   */
  encode(attributes: readonly (readonly string[])[]): SparseSequence {
    const T = attributes.length;
    const offsets = new Int32Array(T + 1);
    let total = 0;
    for (const token of attributes) total += token.length;
    let ids = new Int32Array(total);
    let nnz = 0;
    for (let t = 0; t < T; t++) {
      const start = nnz;
      for (const a of attributes[t]!) {
        const id = this.ids.get(a);
        if (id !== undefined) ids[nnz++] = id;
      }
      if (nnz - start > 1) ids.subarray(start, nnz).sort();
      offsets[t + 1] = nnz;
    }
    if (nnz < total) ids = ids.slice(0, nnz);
    return { offsets, ids };
  }
}
