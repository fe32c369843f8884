/**
 * What a linear chain may output and what its mistakes cost, by label name: tag-scheme constraints (BIO/IOB2,
 * BIOES), forbidden transitions, and the class weights of a weighted Hamming loss. They become the masks and
 * weights of {@link ChainRules}, which every chain model applies in its loss-augmented oracle and its decoders.
 * @module
 */
import { InputError } from '../core/errors.js';

/** The tag schemes whose transitions `--constraints` enforces. `bio` and `iob2` are the same rules. */
export const TAG_SCHEMES = ['bio', 'iob2', 'bioes'] as const;
/** A tag scheme of {@link TAG_SCHEMES}. */
export type TagScheme = (typeof TAG_SCHEMES)[number];

/** Forbidden transitions and end states of a chain, and the class weights of its loss (all optional). */
export interface ChainRules {
  /** allowed[prev + K*next] = 0 forbids the transition prev -> next. */
  allowed?: Uint8Array;
  /** allowedFirst[k] = 0 forbids state k at the first position. */
  allowedFirst?: Uint8Array;
  /** allowedLast[k] = 0 forbids state k at the last position. */
  allowedLast?: Uint8Array;
  /** c_k >= 0: the cost of a mistake on a token whose true state is k; the loss is (1/T) sum_t c_{y_t} [y_t != yhat_t]. */
  labelWeights?: Float64Array;
}

/** The constraints and weights as a model file keeps them (label names, not ids). */
export interface ChainRulesSpec {
  /** A tag scheme whose invalid transitions are forbidden. */
  constraints?: TagScheme;
  /** Forbidden transitions `A>B` (label names). */
  forbid?: string[];
  /** Class weights c_k in label order (the weighted Hamming loss). */
  labelWeights?: number[];
}

/** Prefix and type of a tag `P-TYPE` (split at the first dash); `O` and names without a dash have type ''. */
function prefixAndType(name: string): [string, string] {
  const dash = name.indexOf('-');
  return dash < 0 ? [name, ''] : [name.slice(0, dash), name.slice(dash + 1)];
}

/**
 * Whether `next` may follow `prev` (prev null: at the first position; next null: after the last) under a scheme.
 * BIO / IOB2: `I-X` only after `B-X` or `I-X`. BIOES: after `B-X` or `I-X` only `I-X` or `E-X`, and those
 * only there; a sequence starts with B, S or O and ends with E, S or O.
 */
function schemeAllows(scheme: TagScheme, prev: [string, string] | null, next: [string, string] | null): boolean {
  if (scheme === 'bioes') {
    const open = prev !== null && (prev[0] === 'B' || prev[0] === 'I');
    const continues = next !== null && (next[0] === 'I' || next[0] === 'E');
    if (open) return continues && next![1] === prev![1];
    return !continues;
  }
  if (next === null || next[0] !== 'I') return true;
  return prev !== null && (prev[0] === 'B' || prev[0] === 'I') && prev[1] === next[1];
}

/** The masks and weights of a spec for a label set. @throws InputError naming a label that does not fit. */
export function chainRules(labelNames: readonly string[], spec: ChainRulesSpec): ChainRules {
  const K = labelNames.length;
  const rules: ChainRules = {};
  const index = new Map(labelNames.map((name, k) => [name, k]));
  if (spec.constraints !== undefined) {
    const scheme = spec.constraints;
    if (!(TAG_SCHEMES as readonly string[]).includes(scheme)) throw new InputError(`unknown tag scheme '${scheme}' (one of ${TAG_SCHEMES.join(', ')})`);
    const prefixes = scheme === 'bioes' ? ['B', 'I', 'E', 'S'] : ['B', 'I'];
    const parts = labelNames.map((name) => {
      const p = prefixAndType(name);
      const ok = name === 'O' || (prefixes.includes(p[0]) && p[1] !== '');
      if (!ok) throw new InputError(`label '${name}' does not follow the ${scheme.toUpperCase()} scheme (O or ${prefixes.map((x) => `${x}-TYPE`).join(', ')})`);
      return p;
    });
    rules.allowed = new Uint8Array(K * K);
    rules.allowedFirst = new Uint8Array(K);
    rules.allowedLast = new Uint8Array(K);
    for (let b = 0; b < K; b++) {
      rules.allowedFirst[b] = schemeAllows(scheme, null, parts[b]!) ? 1 : 0;
      rules.allowedLast[b] = schemeAllows(scheme, parts[b]!, null) ? 1 : 0;
      for (let a = 0; a < K; a++) rules.allowed[a + K * b] = schemeAllows(scheme, parts[a]!, parts[b]!) ? 1 : 0;
    }
  }
  for (const pair of spec.forbid ?? []) {
    const [a, b, ...rest] = pair.split('>');
    const ia = index.get(a ?? '');
    const ib = index.get(b ?? '');
    if (rest.length > 0 || ia === undefined || ib === undefined) {
      throw new InputError(`forbidden transition '${pair}' must be A>B with A and B among the labels (${labelNames.join(' ')})`);
    }
    rules.allowed ??= new Uint8Array(K * K).fill(1);
    rules.allowed[ia + K * ib] = 0;
  }
  if (spec.labelWeights !== undefined) {
    const c = spec.labelWeights;
    if (c.length !== K || c.some((x) => !(typeof x === 'number' && x >= 0 && Number.isFinite(x)))) {
      throw new InputError(`label weights must be ${K} finite numbers >= 0, one per label`);
    }
    rules.labelWeights = Float64Array.from(c);
  }
  return rules;
}

/** Whether a labelling obeys the masks; else the first position that breaks them and why (`labelNames` only name states in it). */
export function checkLabelling(rules: ChainRules, y: ArrayLike<number>, labelNames: readonly string[]): { position: number; why: string } | null {
  const K = rules.allowed ? Math.round(Math.sqrt(rules.allowed.length)) : labelNames.length;
  const T = y.length;
  const name = (k: number) => labelNames[k] ?? String(k);
  if (T === 0) return null;
  if (rules.allowedFirst && rules.allowedFirst[y[0]!] === 0) return { position: 0, why: `${name(y[0]!)} may not start a sequence` };
  if (rules.allowed) {
    for (let t = 1; t < T; t++) {
      if (rules.allowed[y[t - 1]! + K * y[t]!] === 0) return { position: t, why: `${name(y[t]!)} may not follow ${name(y[t - 1]!)}` };
    }
  }
  if (rules.allowedLast && rules.allowedLast[y[T - 1]!] === 0) return { position: T - 1, why: `${name(y[T - 1]!)} may not end a sequence` };
  return null;
}

/**
 * Class weights from `--label-weights`: `balanced` (c_k = N / (K' N_k) over the K' labels that occur, N_k
 * tokens of label k, N tokens; 1 for labels that never occur) or `NAME=WEIGHT,...` (unnamed labels 1).
 * `counts[k]` = training tokens of label k.
 */
export function parseLabelWeights(text: string, labelNames: readonly string[], counts: ArrayLike<number>): number[] {
  const K = labelNames.length;
  if (text === 'balanced') {
    let total = 0;
    let present = 0;
    for (let k = 0; k < K; k++) {
      total += counts[k]!;
      if (counts[k]! > 0) present++;
    }
    return Array.from({ length: K }, (_, k) => (counts[k]! > 0 ? total / (present * counts[k]!) : 1));
  }
  const c = new Array<number>(K).fill(1);
  for (const item of text.split(',')) {
    const eq = item.lastIndexOf('=');
    const k = labelNames.indexOf(item.slice(0, eq));
    const v = Number(item.slice(eq + 1));
    if (eq <= 0 || k < 0 || item.slice(eq + 1).trim() === '' || !(v >= 0 && Number.isFinite(v))) {
      throw new InputError(`--label-weights: '${item}' must be LABEL=WEIGHT with a label of the data (${labelNames.join(' ')}) and a weight >= 0, or 'balanced'`);
    }
    c[k] = v;
  }
  return c;
}
