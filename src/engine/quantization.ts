// Quantization as configured (docs/api.md §15) turned into what the kernel builds: which shapes
// QuiverDB acts on, which it refuses, and which applies to a vector (its own setting, else the
// collection's). Structural types only, so collection-config.ts can use it without a cycle.
import type { KernelBinaryEncoding, KernelQuantization, KernelQueryEncoding } from '../native/vector-index.js';

const BINARY_ENCODINGS: readonly string[] = ['one_bit', 'two_bits', 'one_and_half_bits'];
const QUERY_ENCODINGS: readonly string[] = ['default', 'binary', 'scalar8bits', 'scalar4bits'];

/** A stored quantization_config: Qdrant's shapes, already checked by the request schema. */
type StoredQuantization = Readonly<Record<string, unknown>> | null | undefined;

/** The field and message of a shape QuiverDB does not act on, or undefined when supported. */
export function unsupportedQuantization(value: unknown): { field: string; message: string } | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const shape = value as Record<string, Record<string, unknown> | undefined>;
  if (shape.product) return { field: 'product', message: 'product quantization is not supported; use scalar (int8) or binary' };
  if (shape.turbo) return { field: 'turbo', message: 'turbo quantization (TurboQuant) is not supported; use scalar (int8) or binary' };
  const binary = shape.binary;
  if (binary) {
    const encoding = binary.encoding;
    if (encoding != null && !BINARY_ENCODINGS.includes(encoding as string)) {
      return { field: 'binary.encoding', message: `binary encoding ${JSON.stringify(encoding)} is not supported; use ${BINARY_ENCODINGS.join(', ')}` };
    }
    const queryEncoding = binary.query_encoding;
    if (queryEncoding != null && !QUERY_ENCODINGS.includes(queryEncoding as string)) {
      return { field: 'binary.query_encoding', message: `query_encoding ${JSON.stringify(queryEncoding)} is not supported; use ${QUERY_ENCODINGS.join(', ')}` };
    }
  }
  return undefined;
}

/**
 * What the kernel should build for one stored setting; null = no quantization. `onDisk`: the
 * vector's originals are mapped (`on_disk: true`); only then does `always_ram: false` put the codes
 * in mapped memory too (docs/api.md §15). Absent stays RAM, unlike Qdrant's default on purpose.
 */
export function kernelQuantizationOf(stored: StoredQuantization, onDisk = false): KernelQuantization | null {
  if (!stored) return null;
  const scalar = stored.scalar as { quantile?: number | null; always_ram?: boolean | null } | undefined;
  if (scalar) {
    const kernel: KernelQuantization = scalar.quantile != null ? { kind: 'int8', quantile: scalar.quantile } : { kind: 'int8' };
    if (onDisk && scalar.always_ram === false) kernel.mapped = true;
    return kernel;
  }
  const binary = stored.binary as { encoding?: string | null; query_encoding?: string | null; always_ram?: boolean | null } | undefined;
  if (binary) {
    const kernel: KernelQuantization = { kind: 'binary' };
    if (onDisk && binary.always_ram === false) kernel.mapped = true;
    if (binary.encoding != null && binary.encoding !== 'one_bit') kernel.encoding = binary.encoding as KernelBinaryEncoding;
    // Qdrant's `default` is the storage's own encoding, as `binary` is.
    if (binary.query_encoding === 'scalar8bits' || binary.query_encoding === 'scalar4bits') kernel.queryEncoding = binary.query_encoding as KernelQueryEncoding;
    return kernel;
  }
  return null;
}

/** The setting that applies to vector `name`: its own quantization_config, else the collection's. */
export function quantizationFor(
  config: { quantization_config: unknown; vectors: Readonly<Record<string, unknown>> },
  name: string,
): KernelQuantization | null {
  const vector = config.vectors[name] as { quantization_config?: StoredQuantization; on_disk?: boolean | null } | undefined;
  return kernelQuantizationOf(vector?.quantization_config ?? (config.quantization_config as StoredQuantization), vector?.on_disk === true);
}
