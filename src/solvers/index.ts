import { InputError } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { bcfw, type BcfwOptions } from './bcfw.js';
import { fw, type FwOptions } from './fw.js';
import { ssg, type SsgOptions } from './ssg.js';
import type { SolverResult } from './common.js';

export type SolverName = 'bcfw' | 'fw' | 'ssg';
export const SOLVERS: readonly SolverName[] = ['bcfw', 'fw', 'ssg'];

/** Options of `train`: the solver's name plus that solver's options. */
export type TrainOptions = ({ solver?: 'bcfw' } & BcfwOptions) | ({ solver: 'fw' } & FwOptions) | ({ solver: 'ssg' } & SsgOptions);

/** Trains a structural SVM on `problem` with the chosen solver (default BCFW with line search and averaging). */
export function train(problem: Problem, options: TrainOptions = {}): SolverResult {
  switch (options.solver ?? 'bcfw') {
    case 'bcfw':
      return bcfw(problem, options as BcfwOptions);
    case 'fw':
      return fw(problem, options as FwOptions);
    case 'ssg':
      return ssg(problem, options as SsgOptions);
    default:
      throw new InputError(`unknown solver '${String(options.solver)}' (one of ${SOLVERS.join(', ')})`);
  }
}
