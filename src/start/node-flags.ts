// The V8 flags the server runs under: `npm start` and `npm run serve` (package.json), the Docker
// image (Dockerfile), the build's warm-up start that writes the code cache (scripts/build-server.mjs)
// and the tests and benchmarks that start the bundle. test/server-bundle.test.ts holds package.json
// and the Dockerfile to this list. V8 reads them when it makes the process's heap, so they must
// be on the command line: set from inside the process they change nothing.
//
// A young generation of up to 2 × 64 MiB: every search request leaves short-lived objects (its
// parsed body, its answer's text), and with V8's default 16 MiB semi-spaces the scavenger ran so
// often at 64 connections that objects of requests still in flight were promoted, and the old
// generation needed mark-compacts. With 64 MiB, bench:http's 100k × 128 load answered 8–13% more
// requests per second, with a shorter p99; at 768-d it is level (docs/architecture.md §23, "The
// young generation").
// An idle server's young generation shrinks back.
//
// An old generation whose first limit is 128 MiB: V8 otherwise starts with a limit just above the
// small live heap of a fresh server (~13–15 MB used at 768-d), so the few MB each busy second
// promotes (parsed 768-number vectors of requests in flight) started a mark-compact every second
// or so, with 8–20 ms pauses in the tail of every request waiting. With 128 MiB, bench:http's
// 768-d load at 64 connections ran 0–1 mark-compacts per 8 s instead of 4–13, and its p99 was
// shorter in 7 of 8 alternating pairs; the price is up to ~70 MB more resident memory before
// the first collection (docs/architecture.md §23, "The old generation's first limit"). Past the
// first limit V8 sizes the old generation by its own rules, as before.
export const serverNodeFlags: readonly string[] = ['--max-semi-space-size=64', '--initial-old-space-size=128'];

/** True when this process was started with exactly the shipped flags and nothing else. */
export function startedWithServerFlags(execArguments: readonly string[], nodeOptions: string | undefined): boolean {
  return (nodeOptions ?? '').trim() === '' && execArguments.length === serverNodeFlags.length && execArguments.every((flag, position) => flag === serverNodeFlags[position]);
}
