// The clean stop's point hand-off file (src/engine/point-handoff.ts, docs/architecture.md §21):
// a clean stop writes the point table, the next start restores it from that file instead of
// reading every point record from the store, and only when the file is whole and matches the
// store exactly. Whatever the file, the points served are the store's.
import { existsSync } from 'node:fs';
import { readFile, writeFile, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.js';
import { captureLogger } from './support/capture-logger.js';
import { dataDirectoriesForFile } from './support/server.js';

const newDirectory = dataDirectoriesForFile();

interface Started {
  app: TestApp['app'];
  lines: () => Record<string, unknown>[];
}

async function start(directory: string): Promise<Started> {
  const { logger, lines } = captureLogger();
  const { app } = await createTestApp({ directory, build: { logger } });
  return { app, lines };
}

/** The "collection loaded" record of `name`: where its points came from and why. */
function loaded(started: Started, name: string): Record<string, unknown> {
  return started.lines().find((line) => line.msg === 'collection loaded' && line.collection === name)!;
}

async function call(app: TestApp['app'], method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown): Promise<any> {
  const response = await app.inject({ method, url, payload: payload as object });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Every point with payload and vector, in id order: what a start must bring back. */
async function everything(app: TestApp['app'], name: string): Promise<unknown[]> {
  const body = await call(app, 'POST', `/collections/${name}/points/scroll`, { limit: 1000, with_payload: true, with_vector: true });
  return body.result.points;
}

/** Fills `name` with integer and UUID ids, varied payloads, a delete (a free slot) and an overwrite. */
async function fill(app: TestApp['app'], name: string, onDiskPayload: boolean): Promise<void> {
  await call(app, 'PUT', `/collections/${name}`, { vectors: { size: 3, distance: 'Dot' }, on_disk_payload: onDiskPayload });
  const points = Array.from({ length: 300 }, (_, index) => ({
    id: index % 3 === 0 ? `00000000-0000-4000-8000-${String(index).padStart(12, '0')}` : index + 1,
    vector: [index, 1, -index / 7],
    payload: index % 5 === 0 ? {} : { index, text: `point ${index} ünïcødé`, nested: { list: [index, null, true] } },
  }));
  await call(app, 'PUT', `/collections/${name}/points?wait=true`, { points });
  await call(app, 'POST', `/collections/${name}/points/delete?wait=true`, { points: [2, 5, 8] });
  await call(app, 'POST', `/collections/${name}/points/payload?wait=true`, { payload: { changed: true }, points: [11] });
  // 2^53 - 1, the largest integer id JSON carries exactly.
  await call(app, 'PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 9007199254740991, vector: [1, 2, 3], payload: { big: true } }] });
}

describe('the point hand-off file', () => {
  for (const onDiskPayload of [false, true]) {
    it(`point hand-off — a clean stop writes it; the next start restores every point from it and deletes it (on_disk_payload ${onDiskPayload})`, async () => {
      const directory = await newDirectory();
      const first = await start(directory);
      await fill(first.app, 'kept', onDiskPayload);
      const expected = await everything(first.app, 'kept');
      await first.app.close();
      const handoff = join(directory, 'collections', '1', 'points.qvp');
      expect(existsSync(handoff)).toBe(true);

      const second = await start(directory);
      expect(loaded(second, 'kept')).toMatchObject({ pointsSource: 'handoff', points: expected.length });
      // One-shot: gone before the collection serves.
      expect(existsSync(handoff)).toBe(false);
      expect(await everything(second.app, 'kept')).toEqual(expected);
      // Writes after a restored start land as usual: a new point takes a free slot, ids stay unique.
      await call(second.app, 'PUT', '/collections/kept/points?wait=true', { points: [{ id: 2, vector: [0, 0, 1], payload: { back: true } }, { id: 3, vector: [0, 1, 0] }] });
      const afterWrites = await everything(second.app, 'kept');
      await second.app.close();

      // The same points come back from the store alone (no file: a crash would leave none).
      const third = await start(directory);
      expect(loaded(third, 'kept')).toMatchObject({ pointsSource: 'handoff' });
      await third.app.close();
      const { rm } = await import('node:fs/promises');
      await rm(handoff);
      const fourth = await start(directory);
      expect(loaded(fourth, 'kept')).toMatchObject({ pointsSource: 'store' });
      expect(await everything(fourth.app, 'kept')).toEqual(afterWrites);
      await fourth.app.close();
    }, 60_000);
  }

  it('point hand-off — a file from before later writes, a damaged or cut file and another collection\'s file are refused, and the store answers', async () => {
    const directory = await newDirectory();
    const first = await start(directory);
    await fill(first.app, 'checked', false);
    await call(first.app, 'PUT', '/collections/other', { vectors: { size: 3, distance: 'Dot' } });
    await call(first.app, 'PUT', '/collections/other/points?wait=true', { points: [{ id: 1, vector: [1, 1, 1], payload: { other: true } }] });
    await first.app.close();
    const handoff = join(directory, 'collections', '1', 'points.qvp');
    const otherHandoff = join(directory, 'collections', '2', 'points.qvp');
    const stale = await readFile(handoff);

    // Stale: written before the write below, put back after it (as a crash could never do, but a copy could).
    const second = await start(directory);
    await call(second.app, 'PUT', '/collections/checked/points?wait=true', { points: [{ id: 1, vector: [9, 9, 9], payload: { later: true } }] });
    const expected = await everything(second.app, 'checked');
    await second.app.close();
    await writeFile(handoff, stale);
    const third = await start(directory);
    expect(loaded(third, 'checked')).toMatchObject({ pointsSource: 'store' });
    expect(String(third.lines().find((line) => line.msg === 'points read from the store' && line.collection === 'checked')?.reason)).toMatch(/holds operation \d+, the store \d+/);
    expect(await everything(third.app, 'checked')).toEqual(expected);
    expect(existsSync(handoff)).toBe(false);
    await third.app.close();

    // Damaged: one flipped byte in the middle of a block.
    const intact = await readFile(handoff);
    const damaged = Buffer.from(intact);
    damaged[Math.floor(damaged.length / 2)]! ^= 0x01;
    await writeFile(handoff, damaged);
    const fourth = await start(directory);
    expect(loaded(fourth, 'checked')).toMatchObject({ pointsSource: 'store' });
    expect(String(fourth.lines().find((line) => line.msg === 'points read from the store' && line.collection === 'checked')?.reason)).toMatch(/fails its checksum/);
    expect(await everything(fourth.app, 'checked')).toEqual(expected);
    await fourth.app.close();

    // Cut short (a copy that stopped half-way): refused.
    const whole = await readFile(handoff);
    await writeFile(handoff, whole.subarray(0, whole.length - 20));
    const cut = await start(directory);
    expect(loaded(cut, 'checked')).toMatchObject({ pointsSource: 'store' });
    expect(await everything(cut.app, 'checked')).toEqual(expected);
    await cut.app.close();

    // Another collection's file (another incarnation binding): refused, never loaded as this one's.
    await copyFile(otherHandoff, handoff);
    const fifth = await start(directory);
    expect(loaded(fifth, 'checked')).toMatchObject({ pointsSource: 'store' });
    expect(loaded(fifth, 'other')).toMatchObject({ pointsSource: 'handoff', points: 1 });
    expect(await everything(fifth.app, 'checked')).toEqual(expected);
    await fifth.app.close();
  }, 60_000);
});
