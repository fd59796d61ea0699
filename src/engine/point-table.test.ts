import { describe, expect, it } from 'vitest';
import { encodePointIdBytes, type PointId } from '../points/ids.js';
import { encodePointRecord } from '../storage/point-records.js';
import { serializeJson } from '../json/serialize.js';
import { PointTable, type PointEntry } from './point-table.js';

function entry(id: number, slot: number): PointEntry {
  return { id, key: String(id), slot, version: 1, payload: {} };
}

function plain(view: PointEntry | undefined): PointEntry | undefined {
  return view && { id: view.id, key: view.key, slot: view.slot, version: view.version, payload: view.payload };
}

describe('point table', () => {
  it('ids and slots — a point is found by id, by key and by slot until it is removed', () => {
    const table = new PointTable();
    const point = entry(7, table.allocateSlot());
    table.set(point);
    // Entries are views made on demand (docs/architecture.md §16): equal in value, not identical.
    expect(plain(table.byId(7))).toEqual(point);
    expect(plain(table.byKey('7'))).toEqual(point);
    expect(plain(table.bySlot(point.slot))).toEqual(point);
    expect(table.size).toBe(1);
    table.remove(point);
    expect(table.byId(7)).toBeUndefined();
    expect(table.bySlot(point.slot)).toBeUndefined();
    expect(table.size).toBe(0);
  });

  it('slots — new points get fresh slots; capacity is one past the highest slot', () => {
    const table = new PointTable();
    expect([table.allocateSlot(), table.allocateSlot(), table.allocateSlot()]).toEqual([0, 1, 2]);
    expect(table.slotCapacity).toBe(3);
  });

  it('slots — a removed point\'s slot is not reused until it is retired', () => {
    const table = new PointTable();
    const point = entry(1, table.allocateSlot());
    table.set(point);
    table.remove(point);
    expect(table.allocateSlot()).toBe(1);
    table.retireSlots([point.slot]);
    expect(table.allocateSlot()).toBe(0);
  });

  it('slots — a retired slot is not reused while a read that could still return it runs', async () => {
    const table = new PointTable();
    const point = entry(1, table.allocateSlot());
    table.set(point);
    let finishRead: () => void = () => undefined;
    const read = table.reading(() => new Promise<void>((resolve) => (finishRead = resolve)));
    table.remove(point);
    table.retireSlots([point.slot]);
    expect(table.allocateSlot()).toBe(1);
    finishRead();
    await read;
    expect(table.allocateSlot()).toBe(0);
  });

  it('slots — a read counted with beginRead holds retired slots until its endRead, as reading does', async () => {
    const table = new PointTable();
    const point = entry(1, table.allocateSlot());
    table.set(point);
    table.beginRead();
    table.remove(point);
    table.retireSlots([point.slot]);
    expect(table.allocateSlot()).toBe(1);
    let waited = false;
    const waiting = table.waitForReads().then(() => (waited = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(waited).toBe(false);
    table.endRead();
    await waiting;
    expect(table.allocateSlot()).toBe(0);
  });

  it('slots — slots given back by a refused write are handed out again', () => {
    const table = new PointTable();
    const allocated = [table.allocateSlot(), table.allocateSlot()];
    table.releaseSlots(allocated);
    expect(new Set([table.allocateSlot(), table.allocateSlot()])).toEqual(new Set(allocated));
    expect(table.allocateSlot()).toBe(2);
  });

  it('restore — free slots are the holes below the highest restored slot', () => {
    const table = new PointTable();
    table.restore(entry(10, 4));
    table.restore(entry(11, 1));
    table.finishRestore();
    expect(table.slotCapacity).toBe(5);
    const reused = [table.allocateSlot(), table.allocateSlot(), table.allocateSlot()].sort();
    expect(reused).toEqual([0, 2, 3]);
    expect(table.allocateSlot()).toBe(5);
  });

  it('restore — a point restored from the store\'s raw bytes reads back as the decoded restore gives it', () => {
    // The slow twin is restoreRecord, which takes the decoded id, version and payload text.
    const points: { id: PointId; slot: number; version: number; payload: Record<string, unknown> }[] = [
      { id: 0, slot: 3, version: 1, payload: {} },
      { id: 2 ** 40 + 7, slot: 0, version: 2 ** 52 + 9, payload: { group: 'a', n: [1, 2] } },
      { id: 18_446_744_073_709_551_615n, slot: 7, version: 12, payload: { text: 'é ü \u2603' } },
      { id: '0b6e8c1e-9a3f-4c2d-8e7f-112233445566', slot: 1, version: 4_294_967_297, payload: { nested: { deep: true } } },
    ];
    const fast = new PointTable();
    const slow = new PointTable();
    for (const point of points) {
      const payloadJson = serializeJson(point.payload);
      fast.restoreStoredRecord(encodePointIdBytes(point.id), encodePointRecord({ slot: point.slot, version: point.version, payloadJson }));
      slow.restoreRecord(point.id, point.slot, point.version, payloadJson);
    }
    fast.finishRestore();
    slow.finishRestore();
    for (const point of points) {
      expect(plain(fast.byId(point.id))).toEqual(plain(slow.byId(point.id)));
      expect(plain(fast.bySlot(point.slot))).toEqual({ id: point.id, key: slow.byId(point.id)!.key, slot: point.slot, version: point.version, payload: point.payload });
    }
    expect(fast.size).toBe(points.length);
    expect(fast.slotCapacity).toBe(slow.slotCapacity);
    expect([fast.allocateSlot(), fast.allocateSlot()]).toEqual([slow.allocateSlot(), slow.allocateSlot()]);
  });

  it('restore — a stored id key of an unknown shape is refused, never read as some other id', () => {
    const table = new PointTable();
    const record = encodePointRecord({ slot: 0, version: 1, payloadJson: '{}' });
    expect(() => table.restoreStoredRecord(Buffer.from([0, 1, 2]), record)).toThrow(/corrupt point id key/);
    expect(() => table.restoreStoredRecord(Buffer.from([9, 0, 0, 0, 0, 0, 0, 0, 1]), record)).toThrow(/corrupt point id key/);
  });

  it('reads — waitForReads resolves once running reads finish', async () => {
    const table = new PointTable();
    let finishRead: () => void = () => undefined;
    const read = table.reading(() => new Promise<void>((resolve) => (finishRead = resolve)));
    let waited = false;
    const waiting = table.waitForReads().then(() => (waited = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(waited).toBe(false);
    finishRead();
    await read;
    await waiting;
    expect(waited).toBe(true);
  });
});
