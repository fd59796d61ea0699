import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPointHandoff, pointHandoffPath, writePointHandoff } from './point-handoff.js';
import { PointTable } from './point-table.js';

const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

/** A table of `count` points with integer and UUID ids, payloads of every size up to ~3 KiB, and holes. */
function filledTable(count: number): PointTable {
  const table = new PointTable();
  for (let slot = 0; slot < count; slot += 1) {
    if (slot % 11 === 5) continue; // a free slot
    const id = slot % 4 === 0 ? `00000000-0000-4000-8000-${String(slot).padStart(12, '0')}` : slot * 3 + 1;
    table.restoreRecord(id, slot, slot + 1, JSON.stringify({ slot, text: 'x'.repeat(slot % 3000) }));
  }
  table.finishRestore();
  return table;
}

/** What a restore hands over, per point: id bytes and record bytes as hex. */
async function restored(directory: string, keptBytesLimit?: number): Promise<{ load: unknown; points: string[] }> {
  const points: string[] = [];
  const load = await loadPointHandoff(
    directory,
    { binding: 'database/incarnation', lastOperationId: 42 },
    {
      point: (block, idStart, idLength, recordStart, recordLength) => {
        points.push(`${block.toString('hex', idStart, idStart + idLength)}:${block.toString('hex', recordStart, recordStart + recordLength)}`);
      },
    },
    keptBytesLimit,
  );
  return { load, points };
}

describe('the point hand-off file (unit)', () => {
  it('point hand-off — a file read once (kept blocks) and a file read twice restore the same points, over several blocks', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-handoff-'));
    directories.push(directory);
    // About 5 MB of payloads: several 1 MiB blocks.
    const table = filledTable(3_500);
    await writePointHandoff(directory, table, 'database/incarnation', 42);
    const once = await restored(directory);
    expect(existsSync(pointHandoffPath(directory))).toBe(false);
    await writePointHandoff(directory, table, 'database/incarnation', 42);
    const twice = await restored(directory, 0);
    expect(once.load).toEqual({ loaded: true, points: table.size });
    expect(twice.load).toEqual(once.load);
    expect(twice.points).toEqual(once.points);
    expect(once.points).toHaveLength(table.size);

    // The restored records rebuild the same table, reserved for their count up front.
    const copy = new PointTable();
    await writePointHandoff(directory, table, 'database/incarnation', 42);
    let reserved = 0;
    await loadPointHandoff(directory, { binding: 'database/incarnation', lastOperationId: 42 }, {
      reserve: (count) => {
        reserved = count;
        copy.reserve(count);
      },
      point: (block, idStart, idLength, recordStart, recordLength) => copy.restoreStoredRecordIn(block, idStart, idLength, block, recordStart, recordLength),
    });
    expect(reserved).toBe(table.size);
    copy.finishRestore();
    expect([...copy.values()].map((entry) => [entry.id, entry.slot, entry.version, entry.payload])).toEqual([...table.values()].map((entry) => [entry.id, entry.slot, entry.version, entry.payload]));
  });
});
