import { describe, expect, it } from 'vitest';
import type { NodeHeartbeat } from './records.js';
import { trimmerOf, trimPoint } from './log-trimmer.js';

function beat(node: string, applied?: Record<string, number>): NodeHeartbeat {
  return { node_id: node, advertise_url: null, started_at: '', ...(applied ? { applied } : {}) };
}

describe('log trimming', () => {
  it('log trimming — the trimming node is the smallest live holder of the shard', () => {
    expect(trimmerOf(['q3', 'q1'], [beat('q1'), beat('q2'), beat('q3')])).toBe('q1');
    expect(trimmerOf(['q3', 'q1'], [beat('q2'), beat('q3')])).toBe('q3');
    expect(trimmerOf(['q3', 'q1'], [beat('q2')])).toBeUndefined();
  });

  it('log trimming — keeps the retention below the lowest live replica and ignores dead ones', () => {
    const beats = [beat('q1', { 'a.0': 500 }), beat('q2', { 'a.0': 300 })];
    expect(trimPoint(['q1', 'q2', 'q9'], beats, 'a.0', 600, 100)).toBe(201);
    expect(trimPoint(['q1'], beats, 'a.0', 600, 100)).toBe(401);
  });

  it('log trimming — a live holder that reports no sequence (starting, or copying) stops any trim', () => {
    expect(trimPoint(['q1', 'q2'], [beat('q1', { 'a.0': 500 }), beat('q2', {})], 'a.0', 600, 1)).toBeUndefined();
  });

  it('log trimming — the last operation of the subject is always kept', () => {
    expect(trimPoint(['q1'], [beat('q1', { 'a.0': 500 })], 'a.0', 480, 1)).toBe(480);
  });
});
