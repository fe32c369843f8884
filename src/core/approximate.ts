/**
 * Approximate max-oracles (DESIGN, Certificates: a gap is called exact only when every oracle call behind it was
 * exact). With an oracle that may miss the maximiser, H_i(w) computed from its label is a lower bound of the true
 * H_i(w), so the primal and the gap of an exact pass are estimates from below, not certificates (Finley & Joachims,
 * ICML 2008). A model says so per call by marking the label its loss-augmented oracle returns:
 *
 *   markApproximate(label, slack)   slack > 0 bounds how far the true maximum of L(yTrue, y) + <w, phi(x, y)> may
 *                                   lie above the label's value (an LP relaxation's dual bound minus the value);
 *                                   Infinity when the oracle has no bound (e.g. alpha-expansion).
 *
 * An unmarked label is a proven maximiser. The exact pass (src/solvers/common.ts) sums the slacks: the run then
 * reports `gapIsExact: false`, `oracle: 'approximate'` and, when every slack is finite, `gapUpperBound` = gap +
 * (1/n) sum_i slack_i, an upper bound on the true gap of the returned iterate. The batched pass reads a decoder's
 * slacks through BatchDecoder.oracleSlack.
 * @module
 */
import { check, InternalError } from './errors.js';

const SLACKS = new WeakMap<object, number>();

/**
 * Marks a label returned by a loss-augmented oracle as not proven the maximiser, with `slack` (> 0, or Infinity):
 * the true maximum exceeds the label's value by at most that much. Returns the label. Labels must be objects
 * (typed arrays, arrays): a primitive label cannot carry the mark.
 */
export function markApproximate<Y>(label: Y, slack: number): Y {
  check(typeof label === 'object' && label !== null, 'only an object label (a typed array, an array) can be marked approximate');
  check(slack > 0, () => `the slack of an approximate oracle's label must be > 0 (or Infinity), got ${slack}`);
  SLACKS.set(label as object, slack);
  return label;
}

/** The slack of a label marked by {@link markApproximate}; 0 for an unmarked label (a proven maximiser). */
export function oracleSlack(label: unknown): number {
  return typeof label === 'object' && label !== null ? (SLACKS.get(label) ?? 0) : 0;
}

/** What the exactness of an oracle pass says of a primal and gap measured with it (the exact pass's `exact` and `slack`). */
export interface GapStatus {
  gapIsExact: boolean;
  /** Present when an oracle call was approximate. */
  oracle?: 'approximate';
  /** gap + slack / n when every approximate call had a bound. */
  gapUpperBound?: number;
  /** primal + slack / n when every approximate call had a bound. */
  primalUpperBound?: number;
}

/**
 * The status of a primal and gap measured with an oracle pass over n blocks: exact, or approximate with the upper
 * bounds primal + slack / n and gap + slack / n when the slack is finite (the true sum of the H_i exceeds the
 * measured one by at most the slack).
 */
export function gapStatus(primal: number, gap: number, pass: { exact: boolean; slack: number }, n: number): GapStatus {
  if (pass.exact) return { gapIsExact: true };
  const bounded = Number.isFinite(pass.slack);
  return { gapIsExact: false, oracle: 'approximate', ...(bounded ? { gapUpperBound: gap + pass.slack / n, primalUpperBound: primal + pass.slack / n } : {}) };
}

/** A certified gap below -NEGATIVE_GAP_TOLERANCE x max(1, |primal|, |dual|) is not rounding. */
const NEGATIVE_GAP_TOLERANCE = 1e-9;

/**
 * primal - dual, checked before it is reported as an exact gap: weak duality makes it >= 0 for every feasible dual
 * point, so a gap below -1e-9 relative to the objectives (a tinier one is rounding and is kept) means an
 * infeasible dual point or a dual of another objective, never a certificate. Every exact gap gapbcfw reports
 * passes here.
 * @throws InternalError naming both objectives.
 */
export function certifiedGap(primal: number, dual: number): number {
  const gap = primal - dual;
  if (gap < -NEGATIVE_GAP_TOLERANCE * Math.max(1, Math.abs(primal), Math.abs(dual))) {
    throw new InternalError(`a duality gap of ${gap} < 0 (primal ${primal} below dual ${dual}) cannot be certified: the dual point is infeasible or of another objective`);
  }
  return gap;
}

/**
 * primal - dual of a primal measured by an oracle pass: a certificate when every call was exact (then checked by
 * {@link certifiedGap}), else an estimate from below, which may even be negative (src/core/approximate.ts).
 */
export function passGap(primal: number, dual: number, pass: { exact: boolean }): number {
  return pass.exact ? certifiedGap(primal, dual) : primal - dual;
}
