import { describe, expect, it } from 'vitest';
import { placeOf, summarizeProfile, type CpuProfile } from '../bench/profile/summary.js';

const root = '/repo';

function profile(): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 3, 4, 5] },
      { id: 2, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
      { id: 3, callFrame: { functionName: 'parseJson', url: 'file:///repo/dist/json/parse.js', lineNumber: 70 } },
      { id: 4, callFrame: { functionName: 'serialize', url: 'file:///repo/node_modules/fastify/lib/reply.js', lineNumber: 9 } },
      { id: 5, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
    ],
    // Each sample lasts until the next delta: idle 10 + 10, parseJson 30 + 10, fastify 20, gc (last, no next delta) 0.
    samples: [2, 3, 2, 3, 4, 5],
    timeDeltas: [0, 10_000, 30_000, 10_000, 10_000, 20_000],
    startTime: 0,
    endTime: 80_000,
  };
}

describe('bench:profile summary', () => {
  it('profile summary — idle time is counted apart and shares are of the busy time', () => {
    const summary = summarizeProfile(profile(), root);
    expect(summary.idle_ms).toBe(20);
    expect(summary.busy_ms).toBe(60);
    const json = summary.places.find((entry) => entry.name === 'dist/json/parse.js')!;
    expect(json.self_ms).toBe(40);
    expect(json.share).toBeCloseTo(2 / 3, 10);
    expect(summary.places.find((entry) => entry.name === 'package fastify')!.self_ms).toBe(20);
  });

  it('profile summary — functions are ranked by self time, heaviest first', () => {
    const summary = summarizeProfile(profile(), root);
    expect(summary.functions.map((entry) => entry.self_ms)).toEqual([...summary.functions.map((entry) => entry.self_ms)].sort((a, b) => b - a));
    expect(summary.functions[0]!.name).toBe('parseJson dist/json/parse.js:71');
  });

  it('profile summary — a place names our file, a package (scoped too), Node or a pseudo-frame', () => {
    expect(placeOf('file:///repo/dist/http/search.js', 'handler', root)).toBe('dist/http/search.js');
    expect(placeOf('file:///repo/node_modules/@sinclair/typebox/build/cjs/compiler/compiler.js', 'check', root)).toBe('package @sinclair/typebox');
    expect(placeOf('node:internal/streams/readable', 'read', root)).toBe('node internals');
    expect(placeOf('', '(garbage collector)', root)).toBe('(garbage collector)');
    expect(placeOf('', 'search', root)).toBe('(native or builtin)');
  });
});
