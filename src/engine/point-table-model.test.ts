import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { pointIdKey, type PointId } from '../points/ids.js';
import type { Payload } from '../points/selectors.js';
import { serializeJson } from '../json/serialize.js';
import { StoredPayload } from '../points/stored-payload.js';
import { answerPayloads, PointTable, payloadDecodeCount, withPayload, withVersion, type PointEntry } from './point-table.js';

const directory = mkdtempSync(join(tmpdir(), 'quiver-point-table-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface TwinPoint {
  id: PointId;
  slot: number;
  version: number;
  payload: Payload;
}

function randomId(random: () => number): PointId {
  const form = random();
  if (form < 0.5) return Math.floor(random() * 200);
  if (form < 0.75) return 2n ** 60n + BigInt(Math.floor(random() * 100));
  return `00000000-0000-4000-8000-${Math.floor(random() * 100).toString(16).padStart(12, '0')}`;
}

function randomPayload(random: () => number, version: number): Payload {
  return { version, text: 'x'.repeat(Math.floor(random() * 80)), nested: { big: 2n ** 63n + BigInt(version), at: '2024-01-02T03:04:05Z' }, list: [version, 'a'] };
}

function plain(entry: PointEntry | undefined): TwinPoint | undefined {
  return entry && { id: entry.id, slot: entry.slot, version: entry.version, payload: entry.payload };
}

/** Random upserts, payload rewrites, version bumps and deletes against a Map of plain objects. */
function runModel(table: PointTable, seed: number): void {
  const random = mulberry32(seed);
  const twin = new Map<string, TwinPoint>();
  const retired: number[] = [];
  for (let version = 1; version <= 3000; version += 1) {
    const id = randomId(random);
    const key = pointIdKey(id);
    const existing = table.byKey(key);
    expect(plain(existing)).toEqual(twin.get(key));
    const draw = random();
    if (draw < 0.45 || !existing) {
      const slot = existing?.slot ?? table.allocateSlot();
      const payload = randomPayload(random, version);
      table.set({ id, key, slot, version, payload });
      twin.set(key, { id, slot, version, payload });
    } else if (draw < 0.6) {
      const payload = { ...existing.payload, edited: version };
      table.set(withPayload(existing, payload, version));
      twin.set(key, { ...twin.get(key)!, version, payload });
    } else if (draw < 0.75) {
      // A vector-only write: same payload bytes, new version.
      table.set(withVersion(existing, version));
      twin.set(key, { ...twin.get(key)!, version });
    } else {
      table.remove(existing);
      twin.delete(key);
      retired.push(existing.slot);
      if (random() < 0.3) table.retireSlots(retired.splice(0));
    }
  }
  expect(table.size).toBe(twin.size);
  const walked = [...table.values()].map(plain);
  expect(walked.map((point) => point!.slot)).toEqual([...walked.map((point) => point!.slot)].sort((a, b) => a - b));
  expect(new Map(walked.map((point) => [pointIdKey(point!.id), point]))).toEqual(twin);
  for (const point of twin.values()) expect(plain(table.bySlot(point.slot))).toEqual(point);
  // Views read together (a filter's run of candidates, in slot order or not, free slots among
  // them) are the views bySlot gives; an answer's whole payloads are their stored texts.
  const slots = Array.from({ length: table.slotCapacity }, (_, slot) => slot);
  const shuffled = slots.map((slot) => [random(), slot] as const).sort((left, right) => left[0] - right[0]).map(([, slot]) => slot);
  for (const order of [slots, shuffled]) expect(table.viewsReadTogether(order).map(plain)).toEqual(order.map((slot) => plain(table.bySlot(slot))));
  const views = [...table.values()];
  const texts = answerPayloads(views).map((payload) => (payload instanceof StoredPayload ? payload.jsonText() : undefined));
  expect(texts).toEqual(views.map((view) => serializeJson(twin.get(view.key)!.payload)));
}

describe('point table against a plain Map twin', () => {
  it('point table — random writes in memory agree with the twin, with compaction of the payload arena', () => {
    const table = new PointTable({ compactionMinimumBytes: 4096 });
    runModel(table, 21);
    expect(table.footprint.compactions).toBeGreaterThan(0);
  });

  it('point table — random writes with on_disk_payload agree with the twin, with compaction of the working file', () => {
    const table = new PointTable({ onDiskPayload: true, directory, compactionMinimumBytes: 4096 });
    runModel(table, 22);
    expect(table.footprint.compactions).toBeGreaterThan(0);
    // Only the write buffer is resident; the payloads are in the file.
    expect(table.footprint.arenaResidentBytes).toBeLessThanOrEqual(256 * 1024);
    table.close();
  });

  it('point table — a view made before a compaction still reads its payload', () => {
    const table = new PointTable({ onDiskPayload: true, directory, compactionMinimumBytes: 1 });
    table.set({ id: 1, key: '1', slot: table.allocateSlot(), version: 1, payload: { a: 1 } });
    const before = table.byId(1)!;
    table.compact();
    table.set({ id: 1, key: '1', slot: before.slot, version: 2, payload: { a: 2 } });
    expect(before.payload).toEqual({ a: 1 });
    expect(table.isCurrent(before)).toBe(false);
    expect(table.byId(1)!.payload).toEqual({ a: 2 });
    table.close();
  });

  it('point table — a payload is decoded only when read, once per view', () => {
    const table = new PointTable();
    table.set({ id: 5, key: '5', slot: table.allocateSlot(), version: 1, payload: { colour: 'red' } });
    const started = payloadDecodeCount();
    const view = table.byId(5)!;
    expect([view.id, view.key, view.slot, view.version]).toEqual([5, '5', 0, 1]);
    expect(payloadDecodeCount()).toBe(started);
    expect(view.payload).toBe(view.payload);
    expect(payloadDecodeCount()).toBe(started + 1);
  });
});
