// Progress of long work (docs/api.md §13.4): GET C's counts and status move while a large upload
// is indexed, and a start-up that must rebuild an index logs its progress with counts, rate and
// ETA. No timing is asserted: only what every snapshot must satisfy, and where it must end.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createTestApp } from './support/app.js';
import { mulberry32 } from './support/seeded-random.js';
import { dataDirectoriesForFile, serverForFile } from './support/server.js';

const server = serverForFile();
const newDirectory = dataDirectoriesForFile();
const random = mulberry32(160);

function points(from: number, count: number, dimension: number): { id: number; vector: number[] }[] {
  return Array.from({ length: count }, (_, position) => ({ id: from + position, vector: Array.from({ length: dimension }, () => random() * 2 - 1) }));
}

describe('progress', () => {
  it('progress — during a large upload points_count follows the writes, indexed_vectors_count only grows, and status is yellow exactly while vectors are left to link', async () => {
    const dimension = 32;
    // 1 KB: the graph is used from the 9th vector on.
    await server.client.createCollection('uploading', { vectors: { size: dimension, distance: 'Cosine' }, optimizers_config: { indexing_threshold: 1 } });
    const batches = 12;
    const batchSize = 500;
    const seen: { points: number; indexed: number; status: string }[] = [];
    for (let batch = 0; batch < batches; batch += 1) {
      await server.client.upsert('uploading', { wait: true, points: points(batch * batchSize, batchSize, dimension) });
      const info = await server.client.getCollection('uploading');
      // Slow reference: the points this test has written so far.
      expect(info.points_count).toBe((batch + 1) * batchSize);
      expect(info.indexed_vectors_count).toBeLessThanOrEqual(info.points_count!);
      expect(info.optimizer_status).toBe('ok');
      expect(info.status).toBe(info.indexed_vectors_count! < info.points_count! ? 'yellow' : 'green');
      seen.push({ points: info.points_count!, indexed: info.indexed_vectors_count!, status: info.status });
    }
    for (let position = 1; position < seen.length; position += 1) expect(seen[position]!.indexed).toBeGreaterThanOrEqual(seen[position - 1]!.indexed);

    await server.app.collections.get('uploading').waitIndexed();
    const done = await server.client.getCollection('uploading');
    expect(done).toMatchObject({ status: 'green', optimizer_status: 'ok', points_count: batches * batchSize, indexed_vectors_count: batches * batchSize });
    // Raw HTTP says the same.
    const raw = await server.request('GET', '/collections/uploading');
    expect(raw.body.result).toMatchObject({ status: 'green', points_count: batches * batchSize, indexed_vectors_count: batches * batchSize });
  });

  it('progress — a start-up that rebuilds an index logs its progress (counts, rate, ETA) and then the rebuilt index', async () => {
    const directory = await newDirectory();
    const total = 5_000;
    const first = await createTestApp({ directory });
    await first.app.inject({ method: 'PUT', url: '/collections/rebuilt', payload: { vectors: { size: 4, distance: 'Euclid' } } });
    const written = points(0, total, 4);
    for (let start = 0; start < total; start += 1_000) {
      const response = await first.app.inject({ method: 'PUT', url: '/collections/rebuilt/points?wait=true', payload: { points: written.slice(start, start + 1_000) } });
      expect(response.statusCode).toBe(200);
    }
    await first.dispose();
    // Without its checkpoint files, the index must be rebuilt from the stored vectors.
    for (const collection of await readdir(join(directory, 'collections'))) {
      for (const file of await readdir(join(directory, 'collections', collection))) {
        if (file.endsWith('.qvi')) await rm(join(directory, 'collections', collection, file));
      }
    }

    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    // Interval 0: every chunk of the rebuild logs, so the lines do not depend on the machine's speed.
    const second = await createTestApp({ directory, build: { logger: pino({ level: 'info' }, sink) }, overrides: { log: { progress_interval_seconds: 0 } } });
    try {
      const progress = lines.filter((line) => line.task === 'index rebuild');
      // Chunks of 4,096 vectors (docs/architecture.md §8): two reports for 5,000.
      expect(progress.map((line) => line.done)).toEqual([4_096, 5_000]);
      for (const line of progress) {
        expect(line).toMatchObject({ collection: 'rebuilt', vector: '', total, rate_per_second: expect.any(Number), percent: expect.any(Number) });
        expect('eta_seconds' in line).toBe(true);
      }
      expect(lines.some((line) => line.msg === 'index rebuilt' && line.collection === 'rebuilt')).toBe(true);
      const info = await second.app.inject({ method: 'GET', url: '/collections/rebuilt' });
      expect(info.json().result.points_count).toBe(total);
    } finally {
      await second.dispose();
    }
  });
});
