import { describe, expect, it } from 'vitest';
import { QuiverErrorWithRetry } from '../errors.js';
import { WriteQueue } from './write-queue.js';

function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describe('WriteQueue', () => {
  it('write queue — tasks run one at a time in arrival order', async () => {
    const queue = new WriteQueue();
    const order: number[] = [];
    const held = gate();
    const first = queue.run(async () => {
      await held.wait;
      order.push(1);
    });
    const second = queue.run(async () => {
      order.push(2);
    });
    expect(queue.length).toBe(2);
    held.open();
    await Promise.all([first, second]);
    expect(order).toEqual([1, 2]);
    expect(queue.length).toBe(0);
  });

  it('write queue — a client write beyond the capacity is refused at once with a 503 and Retry-After, and nothing is queued', async () => {
    const queue = new WriteQueue(2);
    const held = gate();
    const running = queue.runBounded(() => held.wait);
    const waiting = queue.runBounded(async () => 'second');
    let refused: unknown;
    let ran = false;
    try {
      void queue.runBounded(async () => {
        ran = true;
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(QuiverErrorWithRetry);
    expect((refused as QuiverErrorWithRetry).status).toBe(503);
    expect((refused as QuiverErrorWithRetry).retryAfterSeconds).toBe(1);
    expect(queue.length).toBe(2);
    held.open();
    await running;
    expect(await waiting).toBe('second');
    expect(ran).toBe(false);
    // Room again once the line has cleared.
    expect(await queue.runBounded(async () => 'later')).toBe('later');
  });

  it('write queue — internal tasks are never refused, and count towards the bound', async () => {
    const queue = new WriteQueue(1);
    const held = gate();
    const client = queue.runBounded(() => held.wait);
    const checkpoint = queue.run(async () => 'checkpoint');
    expect(queue.length).toBe(2);
    expect(() => queue.runBounded(async () => undefined)).toThrow(/write queue is full/);
    held.open();
    await client;
    expect(await checkpoint).toBe('checkpoint');
  });

  it('write queue — a failed task frees its place and does not stop the next', async () => {
    const queue = new WriteQueue(1);
    await expect(queue.runBounded(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(queue.length).toBe(0);
    expect(await queue.runBounded(async () => 'next')).toBe('next');
  });
});
