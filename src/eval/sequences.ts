/**
 * Metrics of sequence labelling, for every chain kind: token accuracy; per-label precision, recall and F1 with
 * their micro and macro averages; and span (chunk) scores per type when the labels follow BIO / IOB2 or BIOES
 * (conlleval's rules, src/eval/chunks.ts; BIOES is read as IOB2 with S = B and E = I).
 *
 * Per label k (token level): precision = tokens predicted k that are k / tokens predicted k, recall = tokens
 * that are k predicted k / tokens that are k, F1 their harmonic mean (0 when undefined). Macro: the mean over the
 * labels that occur in the gold or the predicted tags. Micro: from the summed counts over the labels other than
 * `O` (over all labels, when there is no `O`, it equals the token accuracy).
 * @module
 */
import { check } from '../core/errors.js';
import { ChunkEvaluator, type ChunkScores, type PrfScores } from './chunks.js';

/** Counts and scores of one label (token level). */
export interface LabelScores {
  /** Tokens whose gold label is this one. */
  support: number;
  /** Tokens predicted with this label. */
  predicted: number;
  /** Tokens predicted with this label that have it. */
  correct: number;
  precision: number;
  recall: number;
  f1: number;
}

/** The span scheme of a label set, when it has one. */
export type SpanScheme = 'bio' | 'bioes';

/** Every figure of a sequence-labelling evaluation. */
export interface SequenceScores {
  sentences: number;
  tokens: number;
  /** Token accuracy. */
  accuracy: number;
  /** Per label, sorted by name. */
  perLabel: Record<string, LabelScores>;
  microPrecision: number;
  microRecall: number;
  microF1: number;
  macroPrecision: number;
  macroRecall: number;
  macroF1: number;
  /** The span scheme the labels follow (absent: none, no span scores). */
  scheme?: SpanScheme;
  /** Span precision, recall, F1 overall and per type (conlleval rules), when the labels follow a scheme. */
  spans?: ChunkScores;
}

/**
 * The scheme of a label set: `bio` when every label is `O`, `B-TYPE` or `I-TYPE`, `bioes` when `E-` or `S-` also
 * occur; undefined otherwise (and for a set without any B-/I-/E-/S- label).
 */
export function spanScheme(labels: Iterable<string>): SpanScheme | undefined {
  let tagged = false;
  let bioes = false;
  for (const label of labels) {
    if (label === 'O') continue;
    const m = /^([BIES])-(.+)$/.exec(label);
    if (!m) return undefined;
    tagged = true;
    if (m[1] === 'E' || m[1] === 'S') bioes = true;
  }
  return tagged ? (bioes ? 'bioes' : 'bio') : undefined;
}

function f1Of(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

/** BIOES tags as IOB2 (S- as B-, E- as I-), for conlleval's chunk rules. */
function asIob2(tags: readonly string[]): string[] {
  return tags.map((t) => (t.startsWith('S-') ? `B-${t.slice(2)}` : t.startsWith('E-') ? `I-${t.slice(2)}` : t));
}

/**
 * Scores predicted label sequences against gold ones (label names). `labelNames` (the model's labels) join the
 * gold and predicted ones in deciding the scheme.
 */
export function sequenceScores(gold: readonly (readonly string[])[], predicted: readonly (readonly string[])[], labelNames: readonly string[] = []): SequenceScores {
  check(gold.length === predicted.length, () => `got ${gold.length} gold sequences but ${predicted.length} predicted`);
  const counts = new Map<string, { support: number; predicted: number; correct: number }>();
  const at = (label: string) => {
    let c = counts.get(label);
    if (!c) counts.set(label, (c = { support: 0, predicted: 0, correct: 0 }));
    return c;
  };
  let tokens = 0;
  let correct = 0;
  for (let i = 0; i < gold.length; i++) {
    const g = gold[i]!;
    const p = predicted[i]!;
    check(g.length === p.length, () => `sequence ${i} has ${g.length} gold labels but ${p.length} predicted`);
    for (let t = 0; t < g.length; t++) {
      tokens++;
      at(g[t]!).support++;
      at(p[t]!).predicted++;
      if (g[t] === p[t]) {
        correct++;
        at(g[t]!).correct++;
      }
    }
  }
  const perLabel: Record<string, LabelScores> = {};
  let macroP = 0;
  let macroR = 0;
  let macroF = 0;
  const micro = { support: 0, predicted: 0, correct: 0 };
  const hasO = counts.has('O') || labelNames.includes('O');
  for (const label of [...counts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const c = counts.get(label)!;
    const precision = c.predicted > 0 ? c.correct / c.predicted : 0;
    const recall = c.support > 0 ? c.correct / c.support : 0;
    const f1 = f1Of(precision, recall);
    perLabel[label] = { ...c, precision, recall, f1 };
    macroP += precision;
    macroR += recall;
    macroF += f1;
    if (!(hasO && label === 'O')) {
      micro.support += c.support;
      micro.predicted += c.predicted;
      micro.correct += c.correct;
    }
  }
  const L = counts.size;
  const microPrecision = micro.predicted > 0 ? micro.correct / micro.predicted : 0;
  const microRecall = micro.support > 0 ? micro.correct / micro.support : 0;
  const scheme = spanScheme([...counts.keys(), ...labelNames]);
  let spans: ChunkScores | undefined;
  if (scheme) {
    const e = new ChunkEvaluator();
    for (let i = 0; i < gold.length; i++) e.add(asIob2(gold[i]!), asIob2(predicted[i]!));
    spans = e.result();
  }
  return {
    sentences: gold.length,
    tokens,
    accuracy: tokens > 0 ? correct / tokens : 0,
    perLabel,
    microPrecision,
    microRecall,
    microF1: f1Of(microPrecision, microRecall),
    macroPrecision: L > 0 ? macroP / L : 0,
    macroRecall: L > 0 ? macroR / L : 0,
    macroF1: L > 0 ? macroF / L : 0,
    ...(scheme ? { scheme, spans } : {}),
  };
}

/** The numbers of a {@link SequenceScores} under the CLI's JSON keys: span `f1`/`precision`/`recall` when there are spans. */
export function flatSequenceMetrics(s: SequenceScores): Record<string, number> {
  return {
    accuracy: s.accuracy,
    microF1: s.microF1,
    macroF1: s.macroF1,
    ...(s.spans ? { f1: s.spans.f1, precision: s.spans.precision, recall: s.spans.recall } : {}),
  };
}

/** The tables of a {@link SequenceScores}: per label, and per span type when there are spans. */
export function sequenceTables(s: SequenceScores): { perLabel: Record<string, LabelScores>; perType?: Record<string, PrfScores> } {
  return { perLabel: s.perLabel, ...(s.spans ? { perType: s.spans.perType } : {}) };
}

/** A per-label (or per-type) table: name, precision, recall, F1 and the gold count, one row each, percentages. */
export function formatScoreTable(title: string, rows: Record<string, { precision: number; recall: number; f1: number; support?: number; gold?: number }>): string {
  const names = Object.keys(rows);
  const width = Math.max(title.length, ...names.map((n) => n.length));
  const pct = (x: number) => (100 * x).toFixed(2).padStart(9);
  const lines = [`  ${title.padEnd(width)} ${'precision'.padStart(9)} ${'recall'.padStart(9)} ${'F1'.padStart(9)} ${'gold'.padStart(8)}`];
  for (const name of names) {
    const r = rows[name]!;
    lines.push(`  ${name.padEnd(width)} ${pct(r.precision)} ${pct(r.recall)} ${pct(r.f1)} ${String(r.support ?? r.gold ?? '').padStart(8)}`);
  }
  return `${lines.join('\n')}\n`;
}
