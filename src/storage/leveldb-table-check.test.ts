import { mkdtemp, readdir, readFile, rm, stat, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTableNumbers } from './leveldb-manifest.js';
import { checkStoreTables, checkStoreTablesPortable, DamagedTableError } from './leveldb-table-check.js';

/** Both checks' outcome on one directory: the counts, or the refusal's message. */
async function outcomes(directory: string): Promise<[string, string]> {
  const describe = (promise: Promise<{ files: number; bytes: number }>) =>
    promise.then(
      (report) => `passes: ${report.files} files, ${report.bytes} bytes`,
      (error: unknown) => `${error instanceof DamagedTableError ? 'damaged' : 'failed'}: ${(error as Error).message}`,
    );
  return [await describe(checkStoreTables(directory)), await describe(checkStoreTablesPortable(directory))];
}

describe('the store table check', () => {
  let root: string;
  let store: string;
  let tables: string[];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'quiver-table-check-'));
    store = join(root, 'db');
    // Enough records, some compressible and some not, for several table files with snappy blocks.
    const database = new ClassicLevel<Buffer, Buffer>(store, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: 256 * 1024 });
    await database.open();
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    for (let batch = 0; batch < 40; batch += 1) {
      const chained = database.batch();
      for (let index = 0; index < 500; index += 1) {
        const key = Buffer.alloc(8);
        key.writeUInt32BE(batch, 0);
        key.writeUInt32BE(index, 4);
        const value = index % 2 === 0 ? Buffer.alloc(200, `payload ${index} `) : Buffer.from(Array.from({ length: 200 }, next));
        chained.put(key, value);
      }
      await chained.write();
    }
    await database.compactRange(Buffer.alloc(8, 0), Buffer.alloc(8, 0xff));
    await database.close();
    tables = (await readdir(store)).filter((name) => /^\d+\.(ldb|sst)$/.test(name)).sort();
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('table check — the kernel and its portable twin accept an intact store with the same counts', async () => {
    expect(tables.length).toBeGreaterThan(1);
    const [kernel, portable] = await outcomes(store);
    expect(kernel).toMatch(/^passes: \d+ files/);
    expect(kernel).toBe(portable);
    let bytes = 0;
    for (const name of tables) bytes += (await stat(join(store, name))).size;
    expect(kernel).toBe(`passes: ${tables.length} files, ${bytes} bytes`);
  });

  it('table check — for a flipped byte anywhere in a table file, the kernel and the twin give the same answer', async () => {
    const copy = join(root, 'flipped');
    const victim = tables[tables.length - 1]!;
    const original = await readFile(join(store, victim));
    let refusals = 0;
    // Every block's contents and trailers, the index block and the footer, sampled along the file.
    const positions = new Set<number>();
    for (let position = 0; position < original.length; position += Math.max(1, Math.floor(original.length / 97))) positions.add(position);
    for (let position = Math.max(0, original.length - 200); position < original.length; position += 3) positions.add(position);
    for (const position of positions) {
      await rm(copy, { recursive: true, force: true });
      await cp(store, copy, { recursive: true });
      const damaged = Buffer.from(original);
      damaged[position]! ^= 0x04;
      await writeFile(join(copy, victim), damaged);
      const [kernel, portable] = await outcomes(copy);
      expect(kernel, `byte ${position} of ${original.length}`).toBe(portable);
      if (kernel.startsWith('damaged')) {
        refusals += 1;
        expect(kernel).toContain(join(copy, victim));
      }
    }
    // Most bytes are block contents or trailers: a flip there must be caught.
    expect(refusals).toBeGreaterThan(positions.size / 2);
  });

  it('table check — a truncated file and a missing directory are answered alike; other files are not tables', async () => {
    const copy = join(root, 'truncated');
    await rm(copy, { recursive: true, force: true });
    await cp(store, copy, { recursive: true });
    await writeFile(join(copy, 'notes.txt'), 'not a table');
    await writeFile(join(copy, tables[0]!), Buffer.alloc(20));
    const [kernel, portable] = await outcomes(copy);
    expect(kernel).toBe(portable);
    expect(kernel).toContain('the file is too short (20 bytes) to be a table');
    expect(await outcomes(join(root, 'missing'))).toEqual(['passes: 0 files, 0 bytes', 'passes: 0 files, 0 bytes']);
  });
});

describe('the store table check and the manifest', () => {
  it('table check — a table file the manifest does not hold (a compaction cut short by a stop) is left out, and LevelDB then deletes it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'quiver-table-manifest-'));
    try {
      const store = join(root, 'db');
      const database = new ClassicLevel<Buffer, Buffer>(store, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: 64 * 1024 });
      await database.open();
      for (let batch = 0; batch < 30; batch += 1) {
        const chained = database.batch();
        for (let index = 0; index < 200; index += 1) chained.put(Buffer.from(`key ${batch} ${index} ${index % 7}`), Buffer.alloc(150, index));
        await chained.write();
      }
      await database.compactRange(Buffer.from('key 0'), Buffer.from('key 9'));
      await database.close();
      const held = (await readdir(store)).filter((name) => /^\d+\.ldb$/.test(name)).sort();
      expect(held.length).toBeGreaterThan(1);
      // LevelDB's manifest replayed: exactly the table files a closed store keeps.
      expect([...((await currentTableNumbers(store)) ?? [])].sort((left, right) => left - right)).toEqual(held.map((name) => Number.parseInt(name, 10)));
      // A half-written compaction output: no footer, never listed in the manifest.
      await writeFile(join(store, '999999.ldb'), Buffer.alloc(5000, 7));
      const [kernel, portable] = await outcomes(store);
      expect(kernel).toBe(portable);
      expect(kernel).toMatch(new RegExp(`^passes: ${held.length} files`));
      expect((await checkStoreTables(store)).leftOut).toEqual(['999999.ldb']);
      const reopened = new ClassicLevel(store);
      await reopened.open();
      await reopened.close();
      expect(await readdir(store)).not.toContain('999999.ldb');
      // A file the manifest holds still refuses the start when damaged.
      const victim = join(store, held[0]!);
      const damaged = await readFile(victim);
      damaged[damaged.length - 1]! ^= 0x01;
      await writeFile(victim, damaged);
      await expect(checkStoreTables(store)).rejects.toThrow(DamagedTableError);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('manifest — an unreadable one leaves every table file to the check', async () => {
    const root = await mkdtemp(join(tmpdir(), 'quiver-table-manifest-'));
    try {
      await writeFile(join(root, 'CURRENT'), 'MANIFEST-000002\n');
      await writeFile(join(root, 'MANIFEST-000002'), Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9]));
      expect(await currentTableNumbers(root)).toBeUndefined();
      await writeFile(join(root, '000005.ldb'), Buffer.alloc(100));
      expect(await outcomes(root)).toEqual([expect.stringMatching(/^damaged: .*000005\.ldb/), expect.stringMatching(/^damaged: .*000005\.ldb/)]);
      await rm(join(root, 'CURRENT'));
      expect(await currentTableNumbers(root)).toBeUndefined();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
