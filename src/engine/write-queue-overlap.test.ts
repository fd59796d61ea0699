import { describe, expect, it } from 'vitest';
import { WriteQueue } from './write-queue.js';

function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Lets every already-settled promise's callbacks run. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 20; turn += 1) await Promise.resolve();
}

describe('WriteQueue overlapped tasks', () => {
  it("overlapped writes — the next write's first part runs during this one's second part; each part keeps arrival order", async () => {
    const queue = new WriteQueue();
    const events: string[] = [];
    const secondHeld = gate();
    const a = queue.runOverlapped(
      async () => {
        events.push('a1');
        return 'a';
      },
      async (value) => {
        events.push('a2 start');
        await secondHeld.wait;
        events.push('a2 end');
        return `${value} done`;
      },
    );
    const b = queue.runOverlapped(
      async () => {
        events.push('b1');
        return 'b';
      },
      async (value) => {
        events.push('b2');
        return `${value} done`;
      },
    );
    await settle();
    // b's first part ran while a's second part is held; b's second part waits for a's.
    expect(events).toEqual(['a1', 'a2 start', 'b1']);
    expect(queue.length).toBe(2);
    secondHeld.open();
    expect(await a).toBe('a done');
    expect(await b).toBe('b done');
    expect(events).toEqual(['a1', 'a2 start', 'b1', 'a2 end', 'b2']);
    expect(queue.length).toBe(0);
  });

  it('overlapped writes — a plain task (a checkpoint) waits for every earlier second part, and later writes wait for it', async () => {
    const queue = new WriteQueue();
    const events: string[] = [];
    const secondHeld = gate();
    const write = queue.runOverlapped(
      async () => events.push('write 1'),
      async () => {
        await secondHeld.wait;
        events.push('write 2');
      },
    );
    const checkpoint = queue.run(async () => {
      events.push('checkpoint');
    });
    const later = queue.runOverlapped(
      async () => events.push('later 1'),
      async () => {
        events.push('later 2');
      },
    );
    await settle();
    expect(events).toEqual(['write 1']);
    secondHeld.open();
    await Promise.all([write, checkpoint, later]);
    expect(events).toEqual(['write 1', 'write 2', 'checkpoint', 'later 1', 'later 2']);
    // drain() settles only once everything has run.
    await queue.drain();
    expect(queue.length).toBe(0);
  });

  it("overlapped writes — a failed first part skips its second part, and the next second part still waits for the earlier one's", async () => {
    const queue = new WriteQueue();
    const events: string[] = [];
    const secondHeld = gate();
    const a = queue.runOverlapped(
      async () => 'a',
      async () => {
        await secondHeld.wait;
        events.push('a2');
      },
    );
    const failed = queue.runOverlapped(
      async () => Promise.reject(new Error('refused')),
      async () => {
        events.push('never');
      },
    );
    const c = queue.runOverlapped(
      async () => 'c',
      async () => {
        events.push('c2');
      },
    );
    await settle();
    expect(events).toEqual([]);
    secondHeld.open();
    // Its refusal is answered once the earlier second part has finished (its place frees then).
    await expect(failed).rejects.toThrow('refused');
    await Promise.all([a, c]);
    expect(events).toEqual(['a2', 'c2']);
    expect(queue.length).toBe(0);
  });

  it('overlapped writes — a full queue refuses the bounded form at once with a 503, counting second parts still running', async () => {
    const queue = new WriteQueue(1);
    const secondHeld = gate();
    const running = queue.runOverlappedBounded(
      async () => 'first',
      () => secondHeld.wait,
    );
    await settle();
    expect(() => queue.runOverlappedBounded(async () => 'x', async () => 'y')).toThrow(/write queue is full/);
    secondHeld.open();
    await running;
    expect(await queue.runOverlappedBounded(async () => 'x', async (value) => `${value}y`)).toBe('xy');
  });
});
