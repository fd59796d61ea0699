import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { jsonShaped } from '../json/json-shaped.js';
import { parseJsonBytes } from '../json/parse.js';
import { scoredAnswerText } from '../json/scored-answer-text.js';
import { serializeJson } from '../json/serialize.js';
import type { Payload } from './selectors.js';
import { StoredPayload } from './stored-payload.js';

const awkwardStrings = ['', 'quote " and backslash \\', 'line\nbreak \u0000 nul \u2028', 'émoji 😀 and lone \ud800', '1e5', '__proto'];
const awkwardNumbers = [0, -0, 1, -1, 0.1, 1e-7, 1e21, 2e21, -1e-300, 5e-324, Number.MAX_SAFE_INTEGER, 3.4028234663852886e38, Math.fround(0.1), 0.012345678359270096];
// Integer-like keys come first in a JavaScript object whatever the order written.
const awkwardKeys = ['a', 'b', '10', '2', '', 'émoji 😀', 'with "quote"', 'long key with spaces'];

/** A payload value as the API accepts them: nested objects and arrays, unsafe integers as bigints, long number arrays. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = random();
  if (pick < 0.15) return awkwardStrings[Math.floor(random() * awkwardStrings.length)];
  if (pick < 0.3) return awkwardNumbers[Math.floor(random() * awkwardNumbers.length)];
  if (pick < 0.35) return BigInt(Number.MAX_SAFE_INTEGER) * BigInt(2 + Math.floor(random() * 1000));
  if (pick < 0.4) return random() < 0.5;
  if (pick < 0.45) return null;
  if (pick < 0.5) return Array.from({ length: 64 + Math.floor(random() * 80) }, () => Math.fround(random() - 0.5));
  if (depth >= 3 || pick < 0.65) return (random() - 0.5) * 10 ** Math.floor(random() * 20 - 10);
  if (pick < 0.8) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  return randomPayload(random, depth + 1);
}

function randomPayload(random: () => number, depth = 0): Payload {
  const payload: Payload = {};
  const count = Math.floor(random() * 5);
  for (let member = 0; member < count; member += 1) payload[awkwardKeys[Math.floor(random() * awkwardKeys.length)]!] = randomValue(random, depth);
  return payload;
}

/** A point view's stored payload as the table holds it: serializeJson's text. */
function stored(payload: Payload): StoredPayload {
  return new StoredPayload(serializeJson(payload));
}

function envelope(result: unknown): unknown {
  return { usage: { hardware: null }, time: 0.000123, status: 'ok', result };
}

describe('stored payloads in answers', () => {
  it('a payload\'s stored text is what writing its decoded value gives, so answers may write the text as it is', () => {
    const random = mulberry32(17);
    for (let trial = 0; trial < 3000; trial += 1) {
      const text = serializeJson(randomPayload(random));
      expect(serializeJson(parseJsonBytes(Buffer.from(text, 'utf8')))).toBe(text);
    }
  });

  it('a search\'s or query\'s answer with whole payloads is written as serializeJson writes the decoded payloads', () => {
    const random = mulberry32(23);
    for (let trial = 0; trial < 1000; trial += 1) {
      const length = Math.floor(random() * 12);
      const payloads = Array.from({ length }, () => randomPayload(random));
      const point = (payload: Payload, position: number) => ({ id: trial % 3 === 0 ? `id-${position}` : position * 7, version: position, score: (random() - 0.5) * 10, payload });
      const decoded = payloads.map((payload, position) => point(payload, position));
      const withStored = decoded.map((plain) => ({ ...plain, payload: stored(plain.payload) }));
      const [plainAnswer, storedAnswer] = trial % 2 === 0 ? [envelope(decoded), envelope(withStored)] : [envelope({ points: decoded }), envelope({ points: withStored })];
      const expected = serializeJson(plainAnswer);
      // The scored answers' own writer, and the general writer's hook for other answers (scroll, retrieve).
      expect(scoredAnswerText(storedAnswer)).toBe(expected);
      expect(serializeJson(storedAnswer)).toBe(expected);
    }
  });

  it('outside the REST writer a stored payload is its value: JSON.stringify, the gRPC door\'s jsonShaped, value()', () => {
    const payload = { city: 'Zürich', tags: ['a', 'b'], count: 3 };
    const held = stored(payload);
    expect(JSON.parse(JSON.stringify({ payload: held }))).toEqual({ payload });
    expect(jsonShaped({ payload: held })).toEqual({ payload });
    expect(held.value()).toEqual(payload);
  });
});
