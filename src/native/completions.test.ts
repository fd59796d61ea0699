// Rules for completions.ts (crates/quiver-node/src/completions.rs), against a stand-in channel so
// the ticket bookkeeping is checked without the kernel.
import { describe, expect, it } from 'vitest';
import { Completions, type Deliver } from './completions.js';

function standIn(): { completions: Completions; deliver: Deliver; holds: boolean[] } {
  const holds: boolean[] = [];
  let deliver: Deliver = () => undefined;
  const completions = new Completions((given) => {
    deliver = given;
    return { hold: (hold) => holds.push(hold) };
  });
  return { completions, deliver: (...args) => deliver(...args), holds };
}

describe('completions', () => {
  it('submit — resolves with the buffer delivered under its ticket, and holds the loop only meanwhile', async () => {
    const { completions, deliver, holds } = standIn();
    let ticket = 0;
    const pending = completions.submit((given) => (ticket = given));
    expect(completions.size).toBe(1);
    const buffer = new ArrayBuffer(8);
    deliver(ticket, buffer, undefined);
    await expect(pending).resolves.toBe(buffer);
    expect(completions.size).toBe(0);
    expect(holds).toEqual([true, false]);
  });

  it('submit — rejects with the error object the addon delivers, code and all', async () => {
    const { completions, deliver } = standIn();
    let ticket = 0;
    const pending = completions.submit((given) => (ticket = given));
    const failure = Object.assign(new Error('the vector index was closed'), { code: 'INDEX_CLOSED' });
    deliver(ticket, undefined, failure);
    await expect(pending).rejects.toBe(failure);
  });

  it('submit — a start that throws rejects at once and forgets the ticket', async () => {
    const { completions, holds } = standIn();
    const failure = new Error('refused');
    await expect(
      completions.submit(() => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(completions.size).toBe(0);
    expect(holds).toEqual([true, false]);
  });

  it('deliver — an unknown ticket is ignored', () => {
    const { completions, deliver } = standIn();
    deliver(12345, new ArrayBuffer(0), undefined);
    expect(completions.size).toBe(0);
  });
});
