// Each of autocannon's connections starts at its own place in the cycle of request bodies.
//
// By default every connection walks the same list from its first body, so at 64 connections the
// server searched the same query ~64 times within a few milliseconds, and each search after the
// first found the graph nodes and rows it reads still in cache: the kernel threads spent ~80 µs
// a search against ~115 µs for distinct queries, and HTTP(64) read ~20% above what distinct
// clients get (bench/README.md, "Each connection its own query"). The kernel's own figures in
// the same benchmark (kernel.ts) take consecutive queries, so the two sides now ask alike.

/** The part of autocannon's client that `setupClient` is given and that this uses. */
export interface RequestCycleClient<Request> {
  setRequests(requests: Request[]): void;
}

/**
 * autocannon's `setupClient` for `connections` clients over `requests`: the n-th client made
 * starts n/connections of the way through the list and wraps around.
 */
export function staggeredClients<Request>(requests: readonly Request[], connections: number): (client: RequestCycleClient<Request>) => void {
  let made = 0;
  return (client) => {
    const offset = Math.floor((made * requests.length) / connections) % requests.length;
    made += 1;
    if (offset > 0) client.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
  };
}
