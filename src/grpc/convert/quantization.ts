// quantization_config between gRPC messages and REST's JSON (docs/api.md §14, §15), both ways.
// Every oneof case is translated, so REST's own rules decide what is refused (product and
// TurboQuant are a 400 there, hence INVALID_ARGUMENT here, naming the field).
import {
  BinaryQuantizationEncoding,
  BinaryQuantizationQueryEncoding_Setting,
  CompressionRatio,
  Memory,
  QuantizationType,
  TurboQuantBitSize,
  type BinaryQuantization,
  type QuantizationConfig,
  type QuantizationConfigDiff,
} from '@qdrant/js-client-grpc';
import { definedOnly } from './filter.js';

type Json = Record<string, unknown>;

const binaryEncodings: Record<number, string> = {
  [BinaryQuantizationEncoding.OneBit]: 'one_bit',
  [BinaryQuantizationEncoding.TwoBits]: 'two_bits',
  [BinaryQuantizationEncoding.OneAndHalfBits]: 'one_and_half_bits',
};

const queryEncodings: Record<number, string> = {
  [BinaryQuantizationQueryEncoding_Setting.Default]: 'default',
  [BinaryQuantizationQueryEncoding_Setting.Binary]: 'binary',
  [BinaryQuantizationQueryEncoding_Setting.Scalar4Bits]: 'scalar4bits',
  [BinaryQuantizationQueryEncoding_Setting.Scalar8Bits]: 'scalar8bits',
};

function memoryName(memory: Memory | undefined): string | undefined {
  return memory === undefined || memory === Memory.MemoryUnknown ? undefined : Memory[memory]?.toLowerCase();
}

function nameOf(table: Record<number, string>, value: number | undefined): string | undefined {
  return value === undefined ? undefined : table[value];
}

function binaryToJson(binary: BinaryQuantization): Json {
  const queryEncoding = binary.queryEncoding?.variant.case === 'setting' ? binary.queryEncoding.variant.value : undefined;
  return definedOnly({
    always_ram: binary.alwaysRam,
    encoding: nameOf(binaryEncodings, binary.encoding),
    query_encoding: nameOf(queryEncodings, queryEncoding),
    memory: memoryName(binary.memory),
  });
}

/** A QuantizationConfig or its Diff as REST's JSON; `"Disabled"` for the diff's disabled case. */
export function quantizationToJson(config: QuantizationConfig | QuantizationConfigDiff | undefined): unknown {
  const one = config?.quantization;
  switch (one?.case) {
    case 'scalar':
      return {
        scalar: definedOnly({
          // The only type the proto names besides "unknown"; REST's schema refuses anything else.
          type: one.value.type === QuantizationType.Int8 ? 'int8' : 'unknown',
          quantile: one.value.quantile,
          always_ram: one.value.alwaysRam,
          memory: memoryName(one.value.memory),
        }),
      };
    case 'binary':
      return { binary: binaryToJson(one.value) };
    case 'product':
      return { product: definedOnly({ compression: CompressionRatio[one.value.compression], always_ram: one.value.alwaysRam, memory: memoryName(one.value.memory) }) };
    case 'turboquant':
      return { turbo: definedOnly({ bits: one.value.bits === undefined ? undefined : TurboQuantBitSize[one.value.bits], always_ram: one.value.alwaysRam }) };
    case 'disabled':
      return 'Disabled';
    default:
      return undefined;
  }
}

function memoryValue(name: unknown): Memory | undefined {
  if (typeof name !== 'string') return undefined;
  const entry = Object.entries(Memory).find(([key, value]) => typeof value === 'number' && key.toLowerCase() === name);
  return entry ? (entry[1] as Memory) : undefined;
}

function valueOf(table: Record<number, string>, name: unknown): number | undefined {
  const entry = Object.entries(table).find(([, value]) => value === name);
  return entry ? Number(entry[0]) : undefined;
}

/** REST's stored quantization_config as the proto's QuantizationConfig (CollectionInfo); the shapes QuiverDB stores. */
export function quantizationMessage(json: unknown): object | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const scalar = (json as Json).scalar as Json | undefined;
  if (scalar) {
    return {
      quantization: {
        case: 'scalar',
        value: definedOnly({
          type: QuantizationType.Int8,
          quantile: typeof scalar.quantile === 'number' ? scalar.quantile : undefined,
          alwaysRam: typeof scalar.always_ram === 'boolean' ? scalar.always_ram : undefined,
          memory: memoryValue(scalar.memory),
        }),
      },
    };
  }
  const binary = (json as Json).binary as Json | undefined;
  if (binary) {
    const queryEncoding = valueOf(queryEncodings, binary.query_encoding);
    return {
      quantization: {
        case: 'binary',
        value: definedOnly({
          alwaysRam: typeof binary.always_ram === 'boolean' ? binary.always_ram : undefined,
          encoding: valueOf(binaryEncodings, binary.encoding),
          queryEncoding: queryEncoding === undefined ? undefined : { variant: { case: 'setting', value: queryEncoding } },
          memory: memoryValue(binary.memory),
        }),
      },
    };
  }
  return undefined;
}
