/**
 * gapbcfw/data: the readers and feature pipelines of the data sets (OCR, CoNLL-2000, LIBSVM, IDX, Weizmann horses, `graph:` JSON Lines, LIBSVM multi-label,
 * LSP, Hansards alignments, the generated demo chains), the Dataset interface (in memory or streamed from disk) and
 * where the real data sets live. `loadTask('KIND:PATH')` of the main entry point pairs them with their models.
 *
 * @example
 * ```ts
 * import { loadOcr, ocrSplit, ocrToSequences } from 'gapbcfw/data';
 * const { train } = ocrSplit(loadOcr('letter.data.gz'), 'small');
 * console.log(ocrToSequences(train).examples.length); // 626 words
 * ```
 * @module
 */
export { ArrayDataset, arrayDataset, chunksOf, toArrays, fingerprintExamples, type Dataset, type DatasetChunk, type ReadStats } from '../core/dataset.js';
export { dataRoot, dataPath, hasData } from './paths.js';
export { loadOcr, parseOcr, ocrSplit, ocrToSequences, type OcrWord, type OcrData } from './ocr.js';
export { loadLibsvm, parseLibsvm, type LibsvmOptions } from './libsvm.js';
export { readGraphFile, type GraphData, type GraphShape } from './graph.js';
export { readMultilabelFile, chowLiuTree, labelGraphEdges, LABEL_GRAPHS, type LabelGraph, type MultilabelData } from './multilabel.js';
export { parseIdx, loadIdx, loadIdxDataset, idxToDataset, type IdxArray, type IdxType, type IdxDatasetOptions } from './idx.js';
export { syntheticChain, type SyntheticChainOptions } from './synthetic.js';
export { parseConll, loadConll, MAX_CHUNK_TYPES, formatConll, conllTokenCount, isChunkTag, ChunkTagSet, encodeConll, ConllSet, type ConllSentence, type ConllReadOptions, type ConllWriteOptions } from './conll.js';
export { readHansards, readParallelSample, parseParallelPairs, alignmentFolds, foldSplit, alignmentMetrics, evaluateAlignments, type AlignedPair } from './alignment.js';
export { loadLspJoints, lspExamples, labelToPixels, lspTruthLevel, lspReferenceScale, type LspAnnotation, type LspExample, type LspFeatureOptions } from './lsp.js';
export { HorseDataset, writeHorseDataset, mergeHorseParts, prepareHorse, encodeRecord, decodeRecord, type HorseRecord, type HorseMeta } from './horse.js';
export { StreamedHorseSet, HorseRecordReader, shouldStream } from './horse-stream.js';
export {
  conllAttributes,
  FeatureDictionary,
  CONLL_TEMPLATES,
  CONLL_TEMPLATE_SET,
  DEFAULT_MIN_FREQUENCY,
  type AttributeTemplate,
  type FeatureDictionaryJSON,
  type DictionaryOptions,
} from './conll-features.js';
export { loadMulticlassData, holdoutSplit, selectRows, withBias, MULTICLASS_DATA_KINDS, type ShapeHint } from './multiclass.js';
export { GapbcfwError, InputError, FormatError, OptionError, MissingPeerError } from '../core/errors.js';
