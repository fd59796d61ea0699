// What the replicas report after applying each log operation (docs/cluster.md §3): a node that
// acknowledged a write with wait=true waits here until write_consistency_factor replicas of each
// touched shard applied it, or one of them refused it (its error is the answer). Reports may
// arrive before the publish acknowledgement does, so the highest sequence per replica is kept
// and a bounded window of recent refusals.
import { errors, type QuiverError } from '../errors.js';

export interface AppliedReport {
  incarnation: string;
  shard: number;
  node: string;
  sequence: number;
  /** Set when the replica refused the operation (a 4xx): every replica refuses it alike. */
  refused?: { status: number; message: string };
}

interface Waiter {
  sequence: number;
  needed: number;
  resolve(): void;
  reject(error: QuiverError): void;
}

const refusalsKept = 4096;

class ShardProgress {
  readonly appliedBy = new Map<string, number>();
  readonly refusals = new Map<number, { status: number; message: string }>();
  waiters: Waiter[] = [];

  count(sequence: number): number {
    let applied = 0;
    for (const position of this.appliedBy.values()) if (position >= sequence) applied += 1;
    return applied;
  }

  settle(): void {
    this.waiters = this.waiters.filter((waiter) => {
      const refusal = this.refusals.get(waiter.sequence);
      if (refusal) {
        waiter.reject(errors.fromReplica(refusal.status, refusal.message));
        return false;
      }
      if (this.count(waiter.sequence) >= waiter.needed) {
        waiter.resolve();
        return false;
      }
      return true;
    });
  }
}

export class AppliedTracker {
  private readonly shards = new Map<string, ShardProgress>();

  private progress(incarnation: string, shard: number): ShardProgress {
    const key = `${incarnation}.${shard}`;
    let found = this.shards.get(key);
    if (!found) {
      found = new ShardProgress();
      this.shards.set(key, found);
    }
    return found;
  }

  report(report: AppliedReport): void {
    const progress = this.progress(report.incarnation, report.shard);
    progress.appliedBy.set(report.node, Math.max(progress.appliedBy.get(report.node) ?? 0, report.sequence));
    if (report.refused) {
      progress.refusals.set(report.sequence, report.refused);
      if (progress.refusals.size > refusalsKept) progress.refusals.delete(progress.refusals.keys().next().value!);
    }
    progress.settle();
  }

  /** Resolves once `needed` replicas applied `sequence`; rejects with a refusal or a 503 after the timeout. */
  waitFor(collection: string, incarnation: string, shard: number, sequence: number, needed: number, timeoutMs: number): Promise<void> {
    const progress = this.progress(incarnation, shard);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        progress.waiters = progress.waiters.filter((other) => other !== waiter);
        reject(errors.writeNotApplied(collection, shard, progress.count(sequence), needed, timeoutMs));
      }, timeoutMs);
      const waiter: Waiter = {
        sequence,
        needed,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      progress.waiters.push(waiter);
      progress.settle();
    });
  }

  forget(incarnation: string): void {
    for (const key of [...this.shards.keys()]) if (key.startsWith(`${incarnation}.`)) this.shards.delete(key);
  }
}
