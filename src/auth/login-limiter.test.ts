import { describe, expect, it } from 'vitest';
import { FailedAttemptLimiter } from './login-limiter.js';

function limiterAt(attemptsPerMinute: number, maxAddresses?: number) {
  const clock = { now_ms: 1_000_000 };
  return { clock, limiter: new FailedAttemptLimiter(attemptsPerMinute, () => clock.now_ms, maxAddresses) };
}

describe('failed-login limiter', () => {
  it('allows attempts up to the limit, then refuses with 429 until the oldest failure is a minute old', () => {
    const { clock, limiter } = limiterAt(2);
    limiter.assertAllowed('a');
    limiter.recordFailure('a');
    clock.now_ms += 10_000;
    limiter.recordFailure('a');
    expect(() => limiter.assertAllowed('a')).toThrow(/Too many failed login attempts: retry in 50 s/);
    expect(limiter.retryAfterSeconds('a')).toBe(50);
    clock.now_ms += 50_000; // the first failure leaves the window
    expect(limiter.retryAfterSeconds('a')).toBe(0);
    limiter.assertAllowed('a');
  });

  it('counts each address separately and forgets an address on success', () => {
    const { limiter } = limiterAt(1);
    limiter.recordFailure('a');
    expect(() => limiter.assertAllowed('a')).toThrow();
    limiter.assertAllowed('b');
    limiter.recordSuccess('a');
    limiter.assertAllowed('a');
  });

  it('stays bounded: past maxAddresses the least recently failing address is forgotten', () => {
    const { limiter } = limiterAt(1, 2);
    limiter.recordFailure('a');
    limiter.recordFailure('b');
    limiter.recordFailure('c');
    limiter.assertAllowed('a'); // forgotten
    expect(() => limiter.assertAllowed('b')).toThrow();
    expect(() => limiter.assertAllowed('c')).toThrow();
  });
});
