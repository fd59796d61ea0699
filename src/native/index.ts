// The only importer of the Rust addon. Everything else uses the interface declared here, so the
// native surface stays small, typed and replaceable in tests.
import { createRequire } from 'node:module';

/** What the addon exports; keep in step with crates/quiver-node/src/lib.rs. */
export interface NativeBinding {
  /** Dot product of two equal-length vectors, read in place (no copy). */
  dot(left: Float32Array, right: Float32Array): number;
  /** The SIMD instruction set the kernel chose at run time, e.g. "avx2+fma". */
  instructionSet(): string;
}

// Same relative path from src/native (tests) and dist/native (built server).
const require = createRequire(import.meta.url);
export const native: NativeBinding = require('../../native/index.cjs') as NativeBinding;

/**
 * Native errors carry a stable code before the first colon ("DIMENSION_MISMATCH: ...");
 * returns it, or undefined for an error that did not come from the kernel.
 */
export function nativeErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const match = /^([A-Z][A-Z_]+):/.exec(error.message);
  return match?.[1];
}

// The vector index factory functions are added here by the kernel work (issue 3):
//   createVectorIndex(options: VectorIndexOptions): VectorIndex
//   loadVectorIndex(path: string): Promise<LoadedVectorIndex>
// with the interface in ./vector-index.ts.
