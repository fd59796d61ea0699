// The only importer of the Rust addon. Everything else uses the interface declared here, so the
// native surface stays small, typed and replaceable in tests.
import { createRequire } from 'node:module';
import type { Distance, LoadedVectorIndex, VectorIndex, VectorIndexOptions } from './vector-index.js';
import { type CompletionChannelHandle, Completions, type Deliver } from './completions.js';
import { invalidArgument, type NativeVectorIndexHandle, WrappedVectorIndex } from './wrapped-vector-index.js';

export { NativeError, type NativeErrorCode, nativeErrorCode } from './errors.js';

/** The addon's index class (crates/quiver-node/src/index.rs). */
export interface NativeVectorIndexClass {
  create(
    dimension: number,
    distance: string,
    m: number,
    efConstruct: number,
    fullScanThreshold: number,
    indexingThreads: number,
    completions: CompletionChannelHandle,
  ): NativeVectorIndexHandle & { readonly dimension: number; readonly distance: string };
  load(path: string, completions: CompletionChannelHandle): Promise<NativeVectorIndexHandle & { readonly dimension: number; readonly distance: string }>;
}

/** What the addon exports; keep in step with crates/quiver-node/src/lib.rs. */
export interface NativeBinding {
  /** Dot product of two equal-length vectors, read in place (no copy). */
  dot(left: Float32Array, right: Float32Array): number;
  /** The SIMD instruction set the kernel chose at run time, e.g. "avx2+fma". */
  instructionSet(): string;
  NativeVectorIndex: NativeVectorIndexClass;
  CompletionChannel: new (deliver: Deliver) => CompletionChannelHandle;
}

// Same relative path from src/native (tests) and dist/native (built server).
const require = createRequire(import.meta.url);
export const native: NativeBinding = require('../../native/index.cjs') as NativeBinding;

const MAX_U32 = 0xffff_ffff;

/** One completion channel per loaded copy of this module (one per JS environment). */
const completions = new Completions((deliver) => new native.CompletionChannel(deliver));

function checkOption(name: keyof VectorIndexOptions, value: number, minimum: number): void {
  if (!Number.isInteger(value) || value < minimum || value > MAX_U32) {
    throw invalidArgument(`${name} must be an integer >= ${minimum}, got ${value}`);
  }
}

/** A new, empty index. Throws INVALID_ARGUMENT for options the kernel cannot honour. */
export function createVectorIndex(options: VectorIndexOptions): VectorIndex {
  checkOption('dimension', options.dimension, 1);
  checkOption('m', options.m, 0);
  checkOption('efConstruct', options.efConstruct, 0);
  checkOption('fullScanThreshold', options.fullScanThreshold, 0);
  checkOption('indexingThreads', options.indexingThreads, 0);
  const handle = native.NativeVectorIndex.create(
    options.dimension,
    options.distance,
    options.m,
    options.efConstruct,
    options.fullScanThreshold,
    options.indexingThreads,
    completions.channel,
  );
  return new WrappedVectorIndex(handle, completions, options.dimension, options.distance);
}

/**
 * Loads a checkpoint written by `VectorIndex.save`. Rejects with CHECKPOINT_MISSING when there
 * is no file, CHECKPOINT_CORRUPT for a damaged or truncated one and CHECKPOINT_VERSION for a
 * format this build does not read; such a file is never partly loaded.
 */
export async function loadVectorIndex(path: string): Promise<LoadedVectorIndex> {
  const handle = await native.NativeVectorIndex.load(path, completions.channel);
  const index = new WrappedVectorIndex(handle, completions, handle.dimension, handle.distance as Distance);
  return { index, lastOperationId: handle.loadedOperationId };
}
