import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { FilePayloadArena, MemoryPayloadArena, type PayloadArena } from './payload-arena.js';

const directory = mkdtempSync(join(tmpdir(), 'quiver-arena-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function randomBytes(random: () => number, length: number): Buffer {
  return Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
}

/**
 * Appends random sizes (some above a chunk or the write buffer) and reads every one back. Half
 * the appends are a range of a larger buffer (a restore's form): only that range is stored.
 */
function checkArena(arena: PayloadArena, seed: number): void {
  const random = mulberry32(seed);
  const written: { location: number; bytes: Buffer }[] = [];
  for (let step = 0; step < 400; step += 1) {
    const length = random() < 0.05 ? 3000 + Math.floor(random() * 3000) : Math.floor(random() * 200);
    const bytes = randomBytes(random, length);
    if (random() < 0.5) {
      const before = Math.floor(random() * 20);
      const source = Buffer.concat([randomBytes(random, before), bytes, randomBytes(random, Math.floor(random() * 20))]);
      written.push({ location: arena.append(source, before, before + length), bytes });
    } else {
      written.push({ location: arena.append(bytes), bytes });
    }
    // Reads interleave with appends: some hit the file, some the unwritten buffer.
    const probe = written[Math.floor(random() * written.length)]!;
    expect(Buffer.compare(arena.read(probe.location, probe.bytes.length), probe.bytes)).toBe(0);
  }
  for (const { location, bytes } of written) expect(Buffer.compare(arena.read(location, bytes.length), bytes)).toBe(0);
  expect(arena.byteLength).toBe(written.reduce((sum, { bytes }) => sum + bytes.length, 0));
  checkSequentialPass(arena, written, random);
  checkReadMany(arena, written, random);
}

/**
 * `readMany` gives what `read` gives for each location asked, in the order asked: runs of
 * neighbours (which the file arena joins into one read), scattered picks, repeats, and, for the
 * file arena, small join gaps and spans so that runs are also split.
 */
function checkReadMany(arena: PayloadArena, written: { location: number; bytes: Buffer }[], random: () => number): void {
  for (let trial = 0; trial < 200; trial += 1) {
    const count = 1 + Math.floor(random() * 30);
    const first = Math.floor(random() * written.length);
    const picked = Array.from({ length: count }, (_, member) => written[trial % 2 === 0 ? (first + member) % written.length : Math.floor(random() * written.length)]!);
    const locations = picked.map(({ location }) => location);
    const lengths = picked.map(({ bytes }) => bytes.length);
    const views =
      arena instanceof FilePayloadArena && trial % 3 === 0 ? arena.readMany(locations, lengths, Math.floor(random() * 64), 64 + Math.floor(random() * 2048)) : arena.readMany(locations, lengths);
    expect(views.map((view, member) => Buffer.compare(view, picked[member]!.bytes))).toEqual(picked.map(() => 0));
  }
}

/**
 * A pass with `sequentialReader` reads what `read` reads: in location order, then with jumps
 * back and forth (the window must refill, not serve stale bytes). Each view is compared before
 * the next call, since it is only valid until then.
 */
function checkSequentialPass(arena: PayloadArena, written: { location: number; bytes: Buffer }[], random: () => number): void {
  const reader = arena instanceof FilePayloadArena ? arena.sequentialReader(4096) : arena.sequentialReader();
  for (const { location, bytes } of written) expect(Buffer.compare(reader(location, bytes.length), bytes)).toBe(0);
  for (let step = 0; step < 200; step += 1) {
    const { location, bytes } = written[Math.floor(random() * written.length)]!;
    expect(Buffer.compare(reader(location, bytes.length), bytes)).toBe(0);
  }
}

describe('payload arena', () => {
  it('memory arena — every append (whole buffer or a range of one) reads back byte for byte, across chunk ends and oversized payloads', () => {
    checkArena(new MemoryPayloadArena(2048), 11);
  });

  it('file arena — every append (whole buffer or a range of one) reads back byte for byte, from the file and from the write buffer', () => {
    const arena = new FilePayloadArena(directory, 0, 1024);
    checkArena(arena, 12);
    arena.close();
    expect(readdirSync(directory).filter((name) => name.endsWith('.working'))).toEqual([]);
  });

  it('file arena — the working file is unlinked at once: nothing shows in the directory, nothing outlives the process', () => {
    const arena = new FilePayloadArena(directory, 1, 64);
    const location = arena.append(Buffer.from('{"kept":true}'));
    arena.append(Buffer.alloc(100, 1));
    expect(readdirSync(directory)).toEqual([]);
    expect(arena.read(location, 13).toString()).toBe('{"kept":true}');
    arena.close();
    expect(() => arena.read(location, 13)).toThrow(/after close/);
  });

  it.skipIf(!existsSync('/dev/full'))('file arena — a file that refuses writes (disk full) loses nothing: the bytes stay readable from memory', () => {
    const full = mkdtempSync(join(tmpdir(), 'quiver-arena-full-'));
    try {
      // Every write to /dev/full fails with ENOSPC.
      symlinkSync('/dev/full', join(full, `.payloads-0.tmp-${process.pid}`));
      const arena = new FilePayloadArena(full, 0, 64);
      checkArena(arena, 13);
      expect(arena.residentBytes).toBeGreaterThan(arena.byteLength - 64);
    } finally {
      rmSync(full, { recursive: true, force: true });
    }
  });
});
