// Constant-time equality for secrets of any length: both sides are hashed first, so neither the
// content nor the length of the expected value leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';

export function secretsEqual(given: string, expected: string): boolean {
  const givenDigest = createHash('sha256').update(given, 'utf8').digest();
  const expectedDigest = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(givenDigest, expectedDigest);
}
