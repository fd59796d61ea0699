import { describe, expect, it } from 'vitest';
import { InFlightVectors } from './in-flight-vectors.js';

function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describe('InFlightVectors', () => {
  it("in-flight vectors — when two overlapped writes mark one slot, the earlier write's end keeps the later mark", async () => {
    const inFlight = new InFlightVectors();
    const earlier = new Map<string, Float32Array | null>([['', Float32Array.of(1, 1)]]);
    const later = new Map<string, Float32Array | null>([['', Float32Array.of(2, 2)]]);
    inFlight.set(7, earlier);
    inFlight.set(8, earlier);
    const held = gate();
    const earlierApply = inFlight.applying([7, 8], () => held.wait, [earlier, earlier]);
    // The later write commits (marks slot 7 again) while the earlier one's kernel update runs.
    inFlight.set(7, later);
    held.open();
    await earlierApply;
    expect(inFlight.holds(7, '')).toBe(true);
    expect(inFlight.holds(8, '')).toBeUndefined();
    await inFlight.applying([7], async () => undefined, [later]);
    expect(inFlight.holds(7, '')).toBeUndefined();
  });

  it('in-flight vectors — without marks every slot of the write is released, as before', async () => {
    const inFlight = new InFlightVectors();
    inFlight.set(1, new Map([['', null]]));
    expect(inFlight.holds(1, '')).toBe(false);
    await inFlight.applying([1], async () => undefined);
    expect(inFlight.holds(1, '')).toBeUndefined();
  });
});
