// Failed logins per client address over a sliding minute. Once an address has used up its
// attempts it is refused (429) before the password is even checked, until the oldest failure
// leaves the window. Bounded: past `maxAddresses` the least recently failing address is forgotten.
import { errors } from '../errors.js';

const windowMilliseconds = 60_000;

export class FailedAttemptLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly attemptsPerMinute: number,
    private readonly now: () => number,
    private readonly maxAddresses = 10_000,
  ) {}

  /** Throws 429 when `address` has no attempts left in the current window. */
  assertAllowed(address: string): void {
    const retryAfterSeconds = this.retryAfterSeconds(address);
    if (retryAfterSeconds > 0) throw errors.tooManyLoginAttempts(retryAfterSeconds);
  }

  /** Whole seconds until `address` may try again; 0 when it may try now. */
  retryAfterSeconds(address: string): number {
    const recent = this.recentFailures(address);
    if (recent.length < this.attemptsPerMinute) return 0;
    return Math.max(1, Math.ceil((recent[0]! + windowMilliseconds - this.now()) / 1000));
  }

  recordFailure(address: string): void {
    const recent = this.recentFailures(address);
    recent.push(this.now());
    // Only the newest `attemptsPerMinute` failures can matter for the decision.
    if (recent.length > this.attemptsPerMinute) recent.splice(0, recent.length - this.attemptsPerMinute);
    this.failures.delete(address); // re-insert so Map order is least-recent first
    this.failures.set(address, recent);
    while (this.failures.size > this.maxAddresses) {
      const oldest = this.failures.keys().next().value as string;
      this.failures.delete(oldest);
    }
  }

  recordSuccess(address: string): void {
    this.failures.delete(address);
  }

  private recentFailures(address: string): number[] {
    const cutoff = this.now() - windowMilliseconds;
    const recent = (this.failures.get(address) ?? []).filter((time) => time > cutoff);
    if (recent.length === 0) this.failures.delete(address);
    return recent;
  }
}
