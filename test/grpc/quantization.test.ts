// quantization_config through the gRPC door (docs/api.md §14, §15): translated both ways, with
// REST's refusals (product, TurboQuant) as INVALID_ARGUMENT naming the field.
import { Code } from '@connectrpc/connect';
import {
  BinaryQuantizationEncoding,
  BinaryQuantizationQueryEncoding_Setting,
  CompressionRatio,
  Distance,
  QuantizationType,
} from '@qdrant/js-client-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcFailure } from './grpc-failure.js';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

const collections = () => server.grpc.api('collections');

describe('quantization through gRPC', () => {
  it('grpc quantization — Create with scalar int8 is stored as REST stores it and Get gives it back', async () => {
    const created = await collections().create({
      collectionName: 'q_scalar',
      vectorsConfig: { config: { case: 'params', value: { size: 8n, distance: Distance.Cosine } } },
      quantizationConfig: { quantization: { case: 'scalar', value: { type: QuantizationType.Int8, quantile: 0.99, alwaysRam: true } } },
    });
    expect(created.result).toBe(true);
    const rest = (await server.request('GET', '/collections/q_scalar')).body;
    // quantile is a proto float32: 0.99 arrives as its nearest float32.
    expect(rest.result.config.quantization_config).toEqual({ scalar: { type: 'int8', quantile: Math.fround(0.99), always_ram: true } });
    const info = await collections().get({ collectionName: 'q_scalar' });
    const quantization = info.result?.config?.quantizationConfig?.quantization;
    expect(quantization?.case).toBe('scalar');
    expect(quantization?.case === 'scalar' ? [quantization.value.type, quantization.value.quantile, quantization.value.alwaysRam] : []).toEqual([
      QuantizationType.Int8,
      Math.fround(0.99),
      true,
    ]);
  });

  it('grpc quantization — a named vector with binary one_bit, then Update disables it', async () => {
    await collections().create({
      collectionName: 'q_binary',
      vectorsConfig: {
        config: {
          case: 'paramsMap',
          value: { map: { text: { size: 8n, distance: Distance.Dot, quantizationConfig: { quantization: { case: 'binary', value: { encoding: BinaryQuantizationEncoding.OneBit } } } } } },
        },
      },
    });
    const info = await collections().get({ collectionName: 'q_binary' });
    const vectors = info.result?.config?.params?.vectorsConfig?.config;
    const text = vectors?.case === 'paramsMap' ? vectors.value.map.text : undefined;
    expect(text?.quantizationConfig?.quantization.case).toBe('binary');
    await collections().update({ collectionName: 'q_binary', quantizationConfig: { quantization: { case: 'scalar', value: { type: QuantizationType.Int8 } } } });
    let rest = (await server.request('GET', '/collections/q_binary')).body;
    expect(rest.result.config.quantization_config).toEqual({ scalar: { type: 'int8' } });
    await collections().update({ collectionName: 'q_binary', quantizationConfig: { quantization: { case: 'disabled', value: {} } } });
    rest = (await server.request('GET', '/collections/q_binary')).body;
    expect(rest.result.config.quantization_config).toBeNull();
  });

  it('grpc quantization — product is INVALID_ARGUMENT naming the field, and nothing is created', async () => {
    const product = await grpcFailure(
      collections().create({
        collectionName: 'q_refused',
        vectorsConfig: { config: { case: 'params', value: { size: 8n, distance: Distance.Cosine } } },
        quantizationConfig: { quantization: { case: 'product', value: { compression: CompressionRatio.x16 } } },
      }),
    );
    expect(product.code).toBe(Code.InvalidArgument);
    expect(product.rawMessage).toMatch(/quantization_config\.product/);
    expect((await collections().collectionExists({ collectionName: 'q_refused' })).result?.exists).toBe(false);
  });

  it('grpc quantization — binary two_bits with a scalar8bits query encoding is created and stored as REST stores it', async () => {
    const created = await collections().create({
      collectionName: 'q_two_bits',
      vectorsConfig: { config: { case: 'params', value: { size: 8n, distance: Distance.Cosine } } },
      quantizationConfig: {
        quantization: {
          case: 'binary',
          value: {
            encoding: BinaryQuantizationEncoding.TwoBits,
            queryEncoding: { variant: { case: 'setting', value: BinaryQuantizationQueryEncoding_Setting.Scalar8Bits } },
          },
        },
      },
    });
    expect(created.result).toBe(true);
    const rest = (await server.request('GET', '/collections/q_two_bits')).body;
    expect(rest.result.config.quantization_config).toEqual({ binary: { encoding: 'two_bits', query_encoding: 'scalar8bits' } });
  });
});
