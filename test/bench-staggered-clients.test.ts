import { describe, expect, it } from 'vitest';
import { staggeredClients } from '../bench/http/staggered-clients.js';

/** The first `count` requests each of `connections` clients sends, as autocannon walks its list. */
function firstSent(requests: number[], connections: number, count: number): number[][] {
  const setup = staggeredClients(requests, connections);
  return Array.from({ length: connections }, () => {
    let list = requests;
    setup({ setRequests: (given) => (list = given) });
    return Array.from({ length: count }, (_, step) => list[step % list.length]!);
  });
}

describe('bench:http load generator', () => {
  it('staggered clients — connections start spread over the cycle, each still sends every request once a lap', () => {
    const requests = Array.from({ length: 200 }, (_, position) => position);
    const sent = firstSent(requests, 64, 200);
    const firsts = sent.map((lap) => lap[0]!);
    expect(firsts[0]).toBe(0);
    // No two connections begin on the same request, and they spread over the whole list.
    expect(new Set(firsts).size).toBe(64);
    expect(Math.max(...firsts)).toBeGreaterThan(190);
    for (const lap of sent) {
      expect([...lap].sort((left, right) => left - right)).toEqual(requests);
      // In order, wrapping around.
      for (let step = 1; step < lap.length; step += 1) expect(lap[step]).toBe((lap[step - 1]! + 1) % 200);
    }
  });

  it('staggered clients — more connections than requests share starting points evenly', () => {
    const firsts = firstSent([0, 1, 2, 3], 8, 1).map((lap) => lap[0]);
    expect(firsts).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
  });
});
