// bench:ann's external peers: the worker line protocol (bench/ann/external-protocol.ts) and the
// headline summary (bench/ann/summary.ts), as pure functions, without starting any worker.
import { describe, expect, it } from 'vitest';
import { commandLine, foundIds, parseReply } from '../bench/ann/external-protocol.js';
import { bestAt, compareWithStrongest, headlineLines, overallLines, type SweepRow } from '../bench/ann/summary.js';

describe('bench:ann peer protocol', () => {
  it('commands — each is one line of space-separated words', () => {
    expect(commandLine({ op: 'build', threads: 2 })).toBe('build 2\n');
    expect(commandLine({ op: 'search', ef: 64, output: '/tmp/found.i32' })).toBe('search 64 /tmp/found.i32\n');
    expect(commandLine({ op: 'overhead' })).toBe('overhead\n');
    expect(commandLine({ op: 'close' })).toBe('close\n');
  });

  it('commands — an output path with a space is refused, not split into two words', () => {
    expect(() => commandLine({ op: 'search', ef: 64, output: '/tmp/a b.i32' })).toThrow(/spaces/);
  });

  it('replies — the first line must announce the library as ready', () => {
    expect(parseReply('{"ok": true, "ready": true, "library": "faiss", "version": "1.15.1"}', 'ready')).toEqual({
      kind: 'ready',
      library: 'faiss',
      version: '1.15.1',
    });
    expect(() => parseReply('{"ok": true}', 'ready')).toThrow(/not ready/);
  });

  it('replies — a build reports its time, RSS growth and optional index size', () => {
    expect(parseReply('{"ok":true,"buildMs":1804.42,"rssGrowthBytes":6176768,"indexBytes":2662876}', 'build')).toEqual({
      kind: 'build',
      buildMs: 1804.42,
      rssGrowthBytes: 6176768,
      indexBytes: 2662876,
    });
    const withoutSize = parseReply('{"ok": true, "buildMs": 5, "rssGrowthBytes": -4096, "indexBytes": null}', 'build');
    expect(withoutSize).toMatchObject({ kind: 'build', indexBytes: undefined, rssGrowthBytes: -4096 });
  });

  it('replies — search and overhead carry their own timings', () => {
    expect(parseReply('{"ok": true, "searchMs": 17.3}', 'search')).toEqual({ kind: 'search', searchMs: 17.3 });
    expect(parseReply('{"ok": true, "emptyLoopMs": 0.02}', 'overhead')).toEqual({ kind: 'overhead', emptyLoopMs: 0.02 });
    expect(parseReply('{"ok": true}', 'close')).toEqual({ kind: 'close' });
  });

  it('filters — a column of the filters file, or none, is one command; its reply counts the allowed points', () => {
    expect(commandLine({ op: 'filter', column: 2 })).toBe('filter 2\n');
    expect(commandLine({ op: 'filter', column: undefined })).toBe('filter none\n');
    expect(() => commandLine({ op: 'filter', column: -1 })).toThrow(/whole number/);
    expect(parseReply('{"ok": true, "allowed": 1003}', 'filter')).toEqual({ kind: 'filter', allowed: 1003 });
    expect(() => parseReply('{"ok": true}', 'filter')).toThrow(/allowed/);
  });

  it('replies — a worker error is thrown with the worker’s own words', () => {
    expect(() => parseReply('{"ok": false, "error": "ValueError: unknown command \'bogus\'"}', 'search')).toThrow(/worker failed: ValueError: unknown command/);
  });

  it('replies — a line that is not a JSON object, or lacks a timing, is an error, never a measurement', () => {
    expect(() => parseReply('Traceback (most recent call last):', 'build')).toThrow(/not JSON/);
    expect(() => parseReply('[1, 2]', 'build')).toThrow(/not an object/);
    expect(() => parseReply('{"ok": true, "rssGrowthBytes": 1}', 'build')).toThrow(/buildMs/);
    expect(() => parseReply('{"ok": true, "searchMs": "fast"}', 'search')).toThrow(/searchMs/);
  });

  it('result files — K little-endian int32 ids per query', () => {
    const ids = Int32Array.from([3, 1, -1, 7, 8, 9]);
    const bytes = new Uint8Array(ids.buffer.slice(0));
    expect(Array.from(foundIds(bytes, 2, 3))).toEqual([3, 1, -1, 7, 8, 9]);
  });

  it('result files — a short file (worker died mid-write) is an error', () => {
    expect(() => foundIds(new Uint8Array(20), 2, 3)).toThrow(/20 bytes, expected 24/);
  });

  it('result files — an unaligned buffer slice is copied, not misread', () => {
    const backing = new Uint8Array(13);
    const view = backing.subarray(1);
    new DataView(view.buffer, view.byteOffset).setInt32(4, 42, true);
    expect(Array.from(foundIds(view, 1, 3))).toEqual([0, 42, 0]);
  });
});

const sweep = (name: string, points: [number, number, number][]): SweepRow => ({
  name,
  points: points.map(([ef, recall, queriesPerSecond]) => ({ ef, recall, queriesPerSecond })),
});

describe('bench:ann headline summary', () => {
  it('bestAt — the fastest sweep point that reaches the recall level', () => {
    const row = sweep('x', [[16, 0.9, 9000], [32, 0.96, 5000], [64, 0.99, 3000], [128, 0.995, 4000]]);
    expect(bestAt(row.points, 0.95)?.ef).toBe(32);
    expect(bestAt(row.points, 0.99)?.ef).toBe(128);
    expect(bestAt(row.points, 0.999)).toBeUndefined();
  });

  it('strongest peer — the peer with the highest QPS at that level, peers that never reach it do not compete', () => {
    const mine = sweep('QuiverDB (async)', [[32, 0.97, 4000], [64, 0.995, 2000]]);
    const fastButPoor = sweep('fast', [[16, 0.9, 50_000]]);
    const steady = sweep('steady', [[32, 0.96, 8000], [64, 0.991, 2500]]);
    const quick = sweep('quick', [[32, 0.95, 10_000], [64, 0.98, 6000]]);
    const at95 = compareWithStrongest(mine, [fastButPoor, steady, quick], 0.95);
    expect(at95.strongest?.name).toBe('quick');
    expect(at95.ratio).toBeCloseTo(0.4);
    const at99 = compareWithStrongest(mine, [fastButPoor, steady, quick], 0.99);
    expect(at99.strongest?.name).toBe('steady');
    expect(at99.ratio).toBeCloseTo(0.8);
  });

  it('strongest peer — no ratio when QuiverDB or every peer misses the level', () => {
    const mine = sweep('QuiverDB (async)', [[32, 0.97, 4000]]);
    expect(compareWithStrongest(mine, [sweep('p', [[32, 0.97, 1000]])], 0.99).ratio).toBeUndefined();
    expect(compareWithStrongest(mine, [sweep('p', [[32, 0.9, 1000]])], 0.95)).toMatchObject({ ratio: undefined, strongest: undefined });
  });

  it('headline — the async row comes first and in bold, sync and batch stay as rows', () => {
    const rows = [
      sweep('QuiverDB (async)', [[32, 0.99, 3000]]),
      sweep('QuiverDB (sync)', [[32, 0.99, 6000]]),
      sweep('QuiverDB (batch)', [[32, 0.99, 7000]]),
    ];
    const lines = headlineLines(rows, [sweep('hnswlib C++', [[32, 0.99, 6000]])]);
    expect(lines[2]).toBe('| **QuiverDB (async)** (the server\'s path) | **0.50** (3000 vs hnswlib C++ 6000) | **0.50** (3000 vs hnswlib C++ 6000) |');
    expect(lines[3]).toBe('| QuiverDB (sync) | 1.00 (6000 vs hnswlib C++ 6000) | 1.00 (6000 vs hnswlib C++ 6000) |');
    expect(lines[4]).toMatch(/^\| QuiverDB \(batch\) \| 1\.17 /);
  });

  it('headline — a level QuiverDB never reaches says so instead of a ratio', () => {
    const lines = headlineLines([sweep('QuiverDB (async)', [[32, 0.96, 3000]])], [sweep('p', [[32, 0.995, 1000]])]);
    expect(lines[2]).toContain('not reached');
  });

  it('overall — one column per dataset and level, ratios only, n/a where nothing compares', () => {
    const lines = overallLines([
      { dataset: 'a', quiverRows: [sweep('QuiverDB (async)', [[32, 0.99, 2000]])], peers: [sweep('p', [[32, 0.99, 4000]])] },
      { dataset: 'b', quiverRows: [sweep('QuiverDB (async)', [[32, 0.96, 3000]])], peers: [sweep('p', [[32, 0.96, 2000]])] },
    ]);
    expect(lines[0]).toBe('| QuiverDB ÷ strongest peer | a @0.95 | a @0.99 | b @0.95 | b @0.99 |');
    expect(lines[2]).toBe('| QuiverDB (async) | **0.50** | **0.50** | **1.50** | n/a |');
  });
});
