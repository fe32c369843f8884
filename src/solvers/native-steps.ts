import { check, InputError } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import type { Rng } from '../core/rng.js';
import { native, type NativeAtoms, type NativeBcfwSteps } from '../native/addon.js';
import type { GapSampler } from '../sampling/gap-sampler.js';
import { ClassDualBlocks, DenseBlocks, SparseBlocks } from './blocks.js';
import type { ResolvedCache } from './block-step.js';
import { NATIVE_ORACLE_CALLS, type DualState } from './dual-state.js';
import type { Sampling, StepType } from './settings.js';

/** The settings of a native step loop. */
export interface NativeStepSettings {
  step: StepType;
  sampling: Sampling;
  gapDegree: number;
  lineSearch: boolean;
  averaging: boolean;
  shrinking: boolean;
  cache: ResolvedCache | undefined;
  /** The heuristic exit's threshold on the estimated gap (-Infinity: none). */
  exitBelow: number;
  /** Threads of the dense block sums (chunked in mini-batch runs). */
  threads: number;
  chunked: boolean;
  /** The adaptive cache's step costs (StepSettings.costs). */
  costs: Float64Array | undefined;
}

/** The native step model of a problem (a built-in model's prepared batch, in memory), or undefined. */
export function nativeStepModel(problem: Problem): unknown {
  return problem.stepModel?.();
}

/**
 * Block steps in native code (native/solver/bcfw_loop.h) for built-in models whose oracle, psi and scores are native
 * (dense chains, sparse chains, multiclass): the whole step of the TypeScript engine (src/solvers/block-step.ts) with
 * its arithmetic, on the solver's own arrays (DualState, GapSampler, the PRNG's words, the pass order), so that both
 * engines give the same traces. The per-block label stores live in native memory; `pull` and `push` copy them to and
 * from the solver's BlockAtoms (checkpoints, warm starts).
 */
export class NativeSteps {
  private readonly loop: NativeBcfwSteps;
  private oracleSeen = 0;
  private readonly scalarLabels: boolean;

  constructor(
    model: unknown,
    private readonly problem: Problem,
    s: NativeStepSettings,
    private readonly state: DualState,
    sampler: GapSampler,
    rng: Rng,
    order: Int32Array,
  ) {
    const { blocks } = state;
    const bounds = state.box.bounded();
    this.scalarLabels = typeof problem.groundTruth(0) === 'number';
    this.loop = new native.BcfwSteps({
      model, lambda: state.lambda, step: s.step, sampling: s.sampling, gapDegree: s.gapDegree, lineSearch: s.lineSearch, averaging: s.averaging, shrinking: s.shrinking,
      cache: s.cache ? { factor: s.cache.factor, nu: s.cache.nu, maxSize: s.cache.maxSize } : null, exitBelow: s.exitBelow, threads: s.threads, chunked: s.chunked,
      w: state.w, wAvg: s.averaging ? state.wAvg : null, lBlocks: state.lBlocks, scalars: state.scalars, counters: state.counters,
      gapEst: sampler.estimates, estTotals: sampler.totals, tree: sampler.tree.nodes, firstVisit: sampler.firstVisitOrder, order, rng: rng.words,
      bounds: bounds.at.length > 0 ? bounds : null,
      blocks: blocks instanceof DenseBlocks ? blocks.data : blocks instanceof SparseBlocks ? blocks.store : null,
      classAlpha: blocks instanceof ClassDualBlocks ? blocks.alpha : null,
      stepCosts: s.costs ?? null,
    });
    this.oracleSeen = state.counters[NATIVE_ORACLE_CALLS]!;
    if (state.atoms) this.push();
  }

  /** The steps at pass positions from .. to-1 (the heuristic exit tested before each); the oracle calls they made. */
  run(from: number, to: number): { steps: number; converged: boolean; oracleCalls: number } {
    let r: { steps: number; converged: boolean };
    try {
      r = this.loop.run(from, to);
    } catch (e) {
      throw new InputError((e as Error).message);
    }
    const seen = this.state.counters[NATIVE_ORACLE_CALLS]!;
    const oracleCalls = seen - this.oracleSeen;
    this.oracleSeen = seen;
    return { ...r, oracleCalls };
  }

  /** A fresh pass order (Rng.permutation's draws, natively). */
  permute(): void {
    this.loop.permute();
  }

  get storedLabels(): number {
    return this.loop.storedLabels;
  }

  /** The native label stores into the solver's BlockAtoms (for a checkpoint). */
  pull(): void {
    const atoms = this.state.atoms;
    const got = this.loop.atoms();
    if (!atoms || !got) return;
    const { problem } = this;
    let a = 0;
    let l = 0;
    atoms.forEach((A, i) => {
      A.clear();
      const len = this.labelLength(i);
      for (let k = 0; k < got.sizes[i]!; k++, a++, l += len) {
        const y = this.scalarLabels ? got.labels[l]! : got.labels.slice(l, l + len);
        A.add(y, problem.labelKey(y), got.loss[a]!, got.alpha[a]!);
      }
      A.exact = got.exact[i] === 1;
    });
  }

  /** The solver's BlockAtoms into the native label stores (after a restore, warm start or start). */
  push(): void {
    const atoms = this.state.atoms!;
    const sizes = Int32Array.from(atoms, (A) => A.size);
    const count = sizes.reduce((s, m) => s + m, 0);
    const ints = atoms.reduce((s, A, i) => s + A.size * this.labelLength(i), 0);
    const out: NativeAtoms = { sizes, labels: new Int32Array(ints), alpha: new Float64Array(count), loss: new Float64Array(count), exact: Uint8Array.from(atoms, (A) => (A.exact ? 1 : 0)) };
    let a = 0;
    let l = 0;
    atoms.forEach((A, i) => {
      const len = this.labelLength(i);
      for (let k = 0; k < A.size; k++, a++, l += len) {
        const y = A.labels[k];
        if (this.scalarLabels) out.labels[l] = y as number;
        else {
          check(y instanceof Int32Array && y.length === len, `block ${i} stores a label that is not ${len} states`);
          out.labels.set(y, l);
        }
        out.alpha[a] = A.alpha[k]!;
        out.loss[a] = A.loss[k]!;
      }
    });
    this.loop.setAtoms(out);
  }

  private labelLength(i: number): number {
    return this.scalarLabels ? 1 : (this.problem.groundTruth(i) as Int32Array).length;
  }
}
