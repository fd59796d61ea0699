import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { native } from '../native/index.js';
import { scoredAnswerText, setKernelScoredLists } from './scored-answer-text.js';

/** A seeded generator, so a failure names the values that made it. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const awkwardNumbers = [0, -0, 1, -1, 0.1, 1e-7, 1.5e-7, 123456789012, 1e21, 2e21, -1e-300, 5e-324, Number.MAX_SAFE_INTEGER, 3.4028234663852886e38, Math.fround(0.1)];
/** Numbers the kernel's writer refuses (not whole, beyond 2^53 - 1) or writes at its edges. */
const awkwardNumberIds = [0, -0, Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 60, 1.5, -3];
const awkwardIds = ['9b5e3c1a-0f4d-4c1e-8a0b-3f2e1d0c9b8a', 'quote " and backslash \\', 'line\nbreak \u0000 nul \u2028', 'émoji 😀 and lone \ud800'];

function envelope(result: unknown, time: unknown = 0.000123): unknown {
  return { usage: { hardware: null }, time, status: 'ok', result };
}

// Lists of four points or more are written by the kernel (kernel lists true), shorter ones in
// TypeScript; with the kernel off (false) every list is written in TypeScript, the kernel's slow
// twin. Both must be JSON.stringify's text.
describe.each([true, false])('scored answer text, kernel lists %s', (kernel) => {
  beforeAll(() => setKernelScoredLists(kernel));
  afterAll(() => setKernelScoredLists(true));

  it('a plain scored answer, a search\'s list or a query\'s {points}, is written exactly as JSON.stringify writes it', () => {
    const random = generator(11);
    for (let trial = 0; trial < 2000; trial += 1) {
      const length = Math.floor(random() * 12);
      const points = Array.from({ length }, () => {
        const pick = random();
        const id = pick < 0.05 ? awkwardIds[Math.floor(random() * awkwardIds.length)]! : pick < 0.1 ? awkwardNumberIds[Math.floor(random() * awkwardNumberIds.length)]! : pick < 0.4 ? Math.floor(random() * 2 ** 53) : Math.floor(random() * 1e6);
        const score = random() < 0.3 ? awkwardNumbers[Math.floor(random() * awkwardNumbers.length)]! : (random() - 0.5) * 10 ** Math.floor(random() * 12 - 6);
        const version = random() < 0.02 ? awkwardNumberIds[Math.floor(random() * awkwardNumberIds.length)]! : Math.floor(random() * 1000);
        return { id, version, score };
      });
      const result = trial % 2 === 0 ? points : { points };
      const value = envelope(result, random() < 0.5 ? random() / 100 : awkwardNumbers[trial % awkwardNumbers.length]);
      expect(scoredAnswerText(value)).toBe(JSON.stringify(value));
    }
  });

  it('a list of four points or more with numeric ids is written by the kernel when it is on', () => {
    const kernelCall = vi.spyOn(native, 'scoredPointsJson');
    try {
      const points = Array.from({ length: 10 }, (_, position) => ({ id: position * 7, version: position, score: (position - 4.5) / 3 }));
      expect(scoredAnswerText(envelope(points))).toBe(JSON.stringify(envelope(points)));
      expect(kernelCall.mock.results.map((result) => typeof result.value)).toEqual(kernel ? ['string'] : []);
    } finally {
      kernelCall.mockRestore();
    }
  });

  it('any other value is left to the general writer', () => {
    const point = { id: 1, version: 0, score: 0.5 };
    class Point {
      constructor(
        readonly id: number,
        readonly version: number,
        readonly score: number,
      ) {}
      toJSON() {
        return 'own form';
      }
    }
    const others: unknown[] = [
      undefined,
      null,
      'text',
      [point],
      envelope({ points: [point], extra: 1 }),
      envelope({ points: [point, null] }),
      envelope({ points: 'x' }),
      envelope({ points: { 0: point, length: 1 } }),
      envelope({}),
      envelope(Object.assign(Object.create({ inherited: 1 }) as object, { points: [point] })),
      envelope({ points: [{ ...point, payload: {} }] }),
      envelope([{ ...point, payload: { a: 1 } }]),
      envelope([{ id: 1, score: 0.5, version: 0 }]),
      envelope([{ id: 1, version: 0 }]),
      envelope([{ ...point, score: Number.NaN }]),
      envelope([{ ...point, score: Number.POSITIVE_INFINITY }]),
      envelope([{ ...point, id: 10n }]),
      envelope([{ ...point, id: true }]),
      envelope([{ ...point, version: '0' }]),
      envelope([new Point(1, 0, 0.5)]),
      envelope([Object.assign(Object.create({ inherited: 1 }) as object, point)]),
      envelope([point, null]),
      envelope([point], Number.NaN),
      { usage: { hardware: null }, time: undefined, status: 'ok', result: [point] },
      { usage: { hardware: null }, time: 0, status: 'error', result: [point] },
      { usage: { hardware: { cpu: 1 } }, time: 0, status: 'ok', result: [point] },
      { usage: { hardware: null }, time: 0, status: 'ok', result: [point], extra: 1 },
      { time: 0, usage: { hardware: null }, status: 'ok', result: [point] },
    ];
    const sparse = [point];
    sparse.length = 3;
    others.push(envelope(sparse));
    // The same refusals at the end of a list long enough for the kernel.
    const padded = others.map((other) => {
      const result = (other as { result?: unknown } | undefined)?.result;
      return Array.isArray(result) ? { ...(other as object), result: [point, point, point, ...(result as unknown[])] } : other;
    });
    [...others, ...padded].forEach((other, position) => expect([position, scoredAnswerText(other)]).toEqual([position, undefined]));
  });
});
