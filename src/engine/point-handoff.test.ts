import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { crc32c } from '../storage/crc32c.js';
import { loadPointHandoff, pointHandoffPath, writePointHandoff } from './point-handoff.js';
import { PointTable } from './point-table.js';

const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

async function newDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-handoff-'));
  directories.push(directory);
  return directory;
}

const binding = 'database/incarnation';
/** Above every version filledTable gives. */
const lastOperationId = 90_000;

/**
 * A table of `count` slots with integer ids (up to 2^64 - 1) and UUID ids, payloads of every
 * size up to ~3 KiB, holes, and free slots at its end.
 */
function filledTable(count: number, options: { onDiskPayload?: boolean; directory?: string } = {}): PointTable {
  const table = new PointTable(options);
  for (let slot = 0; slot < count; slot += 1) {
    if (slot % 11 === 5) continue; // a free slot
    const id = slot % 4 === 0 ? `00000000-0000-4000-8000-${String(slot).padStart(12, '0')}` : slot === 7 ? 18_446_744_073_709_551_615n : slot * 3 + 1;
    table.restoreRecord(id, slot, slot + 1, JSON.stringify({ slot, text: 'x'.repeat(slot % 3000) }));
  }
  // Two points at the end deleted: their slots are free, below the table's next slot.
  for (const slot of [count - 1, count - 2]) {
    const entry = table.bySlot(slot);
    if (entry) table.remove(entry);
  }
  table.finishRestore();
  return table;
}

/** Every live point as reads see it. */
function contents(table: PointTable): unknown[] {
  return [...table.values()].map((entry) => [entry.id, entry.slot, entry.version, entry.payload]);
}

/** Restores the file in `directory` into a new table; the load's answer and the table. */
async function restoredTable(directory: string, options: { keptBytesLimit?: number; onDiskPayload?: boolean } = {}): Promise<{ load: unknown; table: PointTable; reserved: number; runs: number }> {
  const table = new PointTable({ onDiskPayload: options.onDiskPayload, directory });
  let reserved = 0;
  let runs = 0;
  const load = await loadPointHandoff(
    directory,
    { binding, lastOperationId },
    {
      reserve: (count) => {
        reserved = count;
        table.reserve(count);
      },
      run: (block, run) => {
        runs += 1;
        table.restoreRun(block, run);
      },
    },
    options.keptBytesLimit,
  );
  table.finishRestore();
  return { load, table, reserved, runs };
}

/** The file's blocks: where each body starts and ends, after the header. */
function blocksOf(file: Buffer): { start: number; end: number }[] {
  const bindingLength = file.readUInt32LE(28);
  const blocks: { start: number; end: number }[] = [];
  for (let position = 32 + bindingLength + 4; ; ) {
    const length = file.readUInt32LE(position);
    if (length === 0) return blocks;
    blocks.push({ start: position + 8, end: position + 8 + length });
    position += 8 + length;
  }
}

/** `file` with the first block's body changed by `change` and its checksum made to match again. */
function withFirstBlockChanged(file: Buffer, change: (body: Buffer, count: number) => void): Buffer {
  const changed = Buffer.from(file);
  const { start, end } = blocksOf(changed)[0]!;
  const body = changed.subarray(start, end);
  change(body, body.readUInt32LE(4));
  changed.writeUInt32LE(crc32c(body), start - 4);
  return changed;
}

describe('the point hand-off file (unit)', () => {
  for (const onDiskPayload of [false, true]) {
    it(`point hand-off — a file read once (kept blocks) and a file read twice restore the same table, over several blocks (on_disk_payload ${onDiskPayload})`, async () => {
      const directory = await newDirectory();
      // About 5 MB of payloads: several 1 MiB blocks.
      const table = filledTable(3_500, { onDiskPayload, directory });
      await writePointHandoff(directory, table, binding, lastOperationId);
      const blocks = blocksOf(await readFile(pointHandoffPath(directory))).length;
      expect(blocks).toBeGreaterThan(3);
      const once = await restoredTable(directory, { onDiskPayload });
      expect(existsSync(pointHandoffPath(directory))).toBe(false);
      await writePointHandoff(directory, table, binding, lastOperationId);
      const twice = await restoredTable(directory, { keptBytesLimit: 0, onDiskPayload });
      for (const restored of [once, twice]) {
        expect(restored.load).toEqual({ loaded: true, points: table.size });
        expect(restored.reserved).toBe(table.size);
        expect(restored.runs).toBe(blocks);
        expect(contents(restored.table)).toEqual(contents(table));
        // The id map answers every id, the widest integer among them.
        expect(restored.table.byId(18_446_744_073_709_551_615n)?.slot).toBe(7);
        expect(restored.table.byId('00000000-0000-4000-8000-000000000008')?.slot).toBe(8);
        expect(restored.table.byId(2 * 3 + 1)?.payload).toEqual({ slot: 2, text: 'xx' });
        expect(restored.table.byId(5 * 3 + 1)).toBeUndefined();
      }
      // The restored table takes writes as the original would: a new point fills the lowest hole.
      const slot = once.table.allocateSlot();
      expect(slot).toBe(table.allocateSlot());
      once.table.set({ id: 123_456_789, key: '123456789', slot, version: lastOperationId + 1, payload: { added: true } });
      expect(once.table.byId(123_456_789)?.payload).toEqual({ added: true });
      once.table.close();
      twice.table.close();
      table.close();
    });
  }

  it('point hand-off — an empty table hands over an empty file that restores no point', async () => {
    const directory = await newDirectory();
    await writePointHandoff(directory, new PointTable(), binding, lastOperationId);
    const restored = await restoredTable(directory);
    expect(restored.load).toEqual({ loaded: true, points: 0 });
    expect(restored.runs).toBe(0);
    expect(restored.table.size).toBe(0);
  });

  const damages: [string, (body: Buffer, count: number) => void, RegExp][] = [
    ['an unknown id kind', (body) => (body[8 + 1] = 3), /slot 1 has an unknown id kind 3/],
    ['a free slot with a payload', (body, count) => body.writeUInt32LE(4, 8 + count * 25 + 5 * 4), /free slot 5 has a version or a payload/],
    ['an integer id wider than 64 bits', (body, count) => body.writeUInt32LE(1, 8 + count + 1 * 16 + 8), /slot 1 has an integer id wider than 64 bits/],
    ['a version beyond the file\'s last operation', (body, count) => body.writeDoubleLE(lastOperationId + 1, 8 + count * 17 + 2 * 8), /slot 2 has version 90001, outside the file's operations/],
    ['a fractional version', (body, count) => body.writeDoubleLE(2.5, 8 + count * 17 + 2 * 8), /slot 2 has version 2.5/],
    ['a run that does not start at slot 0', (body) => body.writeUInt32LE(1, 0), /a block starts at slot 1, not 0/],
    ['a run longer than its block', (body) => body.writeUInt32LE(1 << 30, 4), /run of slots does not fit it/],
    ['payload lengths that do not add up', (body, count) => body.writeUInt32LE(body.readUInt32LE(8 + count * 25) + 1, 8 + count * 25), /payload lengths do not add up/],
  ];
  for (const [name, change, reason] of damages) {
    it(`point hand-off — a block whose checksum holds but which has ${name} is refused, and nothing is restored`, async () => {
      const directory = await newDirectory();
      await writePointHandoff(directory, filledTable(400), binding, lastOperationId);
      const path = pointHandoffPath(directory);
      await writeFile(path, withFirstBlockChanged(await readFile(path), change));
      const restored = await restoredTable(directory);
      expect(restored.load).toEqual({ loaded: false, reason: expect.stringMatching(reason) });
      expect(restored.runs).toBe(0);
      expect(restored.reserved).toBe(0);
      expect(existsSync(path)).toBe(false);
    });
  }

  it('point hand-off — a file of format 1 (point records, before the columns) is refused by its version', async () => {
    const directory = await newDirectory();
    await writePointHandoff(directory, filledTable(50), binding, lastOperationId);
    const path = pointHandoffPath(directory);
    const file = await readFile(path);
    const headerEnd = 32 + file.readUInt32LE(28);
    file.writeUInt32LE(1, 8);
    file.writeUInt32LE(crc32c(file.subarray(0, headerEnd)), headerEnd);
    await writeFile(path, file);
    const restored = await restoredTable(directory);
    expect(restored.load).toEqual({ loaded: false, reason: 'point hand-off file refused: format version 1 (this build reads 2)' });
    expect(restored.runs).toBe(0);
  });
});
