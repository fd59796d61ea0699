// Native error codes: the TypeScript twin of crates/quiver-node/src/errors.rs (tests in
// errors.test.ts). The addon throws or rejects with a plain Error whose `code` property is one of
// these codes and whose message is a readable sentence; this file is the one place that reads
// the code. The strings come from quiver_core::ErrorCode::as_str (crates/quiver-core/src/error.rs).

export const nativeErrorCodes = [
  'DIMENSION_MISMATCH',
  'INVALID_ARGUMENT',
  /** The checkpoint file does not exist (a first start, or a collection never checkpointed). */
  'CHECKPOINT_MISSING',
  'CHECKPOINT_CORRUPT',
  'CHECKPOINT_VERSION',
  'INDEX_CLOSED',
  'IO_ERROR',
  'INTERNAL',
] as const;

export type NativeErrorCode = (typeof nativeErrorCodes)[number];

const knownCodes: ReadonlySet<string> = new Set(nativeErrorCodes);

/** An error raised on the TypeScript side of the boundary, shaped like the addon's own. */
export class NativeError extends Error {
  constructor(
    readonly code: NativeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'NativeError';
  }
}

/**
 * The kernel code `error` carries, or undefined for an error that did not come from the kernel
 * (including Node-API's own argument errors, whose codes are napi-rs status names).
 */
export function nativeErrorCode(error: unknown): NativeErrorCode | undefined {
  if (!(error instanceof Error)) return undefined;
  const code: unknown = (error as { code?: unknown }).code;
  return typeof code === 'string' && knownCodes.has(code) ? (code as NativeErrorCode) : undefined;
}
