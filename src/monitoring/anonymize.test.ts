import { describe, expect, it } from 'vitest';
import { anonymizeCount, anonymizeName, anonymizeTimestamp } from './anonymize.js';

describe('anonymize', () => {
  it('anonymize — a name becomes a stable decimal hash that differs between names', () => {
    expect(anonymizeName('customers')).toBe(anonymizeName('customers'));
    expect(anonymizeName('customers')).not.toBe(anonymizeName('customers2'));
    expect(anonymizeName('customers')).toMatch(/^[0-9]+$/);
  });

  it('anonymize — counts keep about four leading digits (as Qdrant rounds them); small counts stay', () => {
    // Slow reference: the rule written out for a few magnitudes.
    expect(anonymizeCount(0)).toBe(0);
    expect(anonymizeCount(25)).toBe(25);
    expect(anonymizeCount(31_622)).toBe(31_622); // log10 rounds to 4
    expect(anonymizeCount(123_456)).toBe(123_450); // log10 rounds to 5: one digit dropped
    expect(anonymizeCount(987_654_321)).toBe(987_600_000); // log10 rounds to 9: five dropped
  });

  it('anonymize — a timestamp moves by at most ten seconds', () => {
    const at = '2026-01-01T00:00:00.000Z';
    for (const random of [0, 0.25, 0.5, 0.999]) {
      const moved = Date.parse(anonymizeTimestamp(at, () => random));
      expect(Math.abs(moved - Date.parse(at))).toBeLessThanOrEqual(10_000);
    }
    expect(anonymizeTimestamp('not a time')).toBe('not a time');
  });
});
