// fuzz — the long run of test/fuzz.test.ts: hostile requests (test/support/hostile-requests.ts)
// against every registered route of an in-process server, for N minutes, from several workers.
//
//   npm run fuzz                      10 minutes, 8 requests in flight, seed 18
//   npm run fuzz -- --minutes 1 --concurrency 4 --seed 7
//
// Prints requests sent, 5xx answers (a route's 501 excepted), answers outside the envelope and
// requests never answered, with the first few offenders; exit code 1 when any count is not 0.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { hostileRequest, judge, registeredRoutes, seedFuzzCollection, sendRaw, type HostileRequest, type Verdict } from '../../test/support/hostile-requests.js';

function option(name: string, fallback: number): number {
  const position = process.argv.indexOf(`--${name}`);
  const value = position < 0 ? Number.NaN : Number(process.argv[position + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const minutes = option('minutes', 10);
const concurrency = option('concurrency', 8);
const seed = option('seed', 18);
const batchSize = 500;

const directory = await mkdtemp(join(tmpdir(), 'quiver-fuzz-'));
const config = loadConfig({ overrides: { storage: { path: directory, fsync: false } } });
const app = buildApp(config, { logger: pino({ level: 'silent' }) });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
await app.engine.open();
const port = Number(new URL(address).port);
const routes = registeredRoutes(app);
await seedFuzzCollection(address);

const arbitrary = hostileRequest(routes);
const counts: Record<Verdict, number> & { sent: number; notImplemented: number } = { sent: 0, ok: 0, server_error: 0, not_enveloped: 0, no_answer: 0, notImplemented: 0 };
const statuses = new Map<number, number>();
const offenders: string[] = [];
const deadline = Date.now() + minutes * 60_000;
let batchNumber = 0;

function record(request: HostileRequest, answer: Awaited<ReturnType<typeof sendRaw>>): void {
  counts.sent += 1;
  if (answer) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  if (answer?.status === 501) counts.notImplemented += 1;
  const verdict = judge(request, answer);
  counts[verdict] += 1;
  if (verdict !== 'ok' && offenders.length < 20) {
    offenders.push(`${verdict} ${answer?.status ?? '-'} ${request.method} ${request.target.slice(0, 120)} [${request.headers.join('; ').slice(0, 120)}] ${request.body?.slice(0, 160) ?? ''} -> ${answer?.body.slice(0, 200) ?? ''}`);
  }
}

/** One worker: takes seeded batches of generated requests until the deadline. */
async function worker(): Promise<void> {
  while (Date.now() < deadline) {
    const batch = fc.sample(arbitrary, { seed: seed * 1_000_003 + batchNumber, numRuns: batchSize });
    batchNumber += 1;
    for (const request of batch) {
      if (Date.now() >= deadline) return;
      record(request, await sendRaw(port, request));
    }
  }
}

const started = Date.now();
const progress = setInterval(() => {
  const elapsed = (Date.now() - started) / 1000;
  console.log(`${elapsed.toFixed(0)} s: ${counts.sent} sent, ${counts.server_error} 5xx, ${counts.not_enveloped} outside the envelope, ${counts.no_answer} unanswered`);
}, 60_000);
// Deletes wear the seed points away: restore them every 20 s.
const reseed = setInterval(() => void seedFuzzCollection(address).catch(() => undefined), 20_000);
await Promise.all(Array.from({ length: concurrency }, () => worker()));
clearInterval(progress);
clearInterval(reseed);

const stillAnswers = (await fetch(`${address}/collections/fuzz`)).status === 200;
await app.close();
await rm(directory, { recursive: true, force: true });

const seconds = (Date.now() - started) / 1000;
console.log(`fuzz: ${minutes} min, ${concurrency} in flight, seed ${seed}, ${routes.length} routes`);
console.log(`requests sent: ${counts.sent} (${(counts.sent / seconds).toFixed(0)}/s)`);
console.log(`5xx (501 excepted): ${counts.server_error}`);
console.log(`outside the envelope: ${counts.not_enveloped}`);
console.log(`unanswered: ${counts.no_answer}`);
console.log(`501 (not-implemented routes): ${counts.notImplemented}`);
console.log(`statuses: ${[...statuses].sort((a, b) => a[0] - b[0]).map(([status, count]) => `${status}×${count}`).join(' ')}`);
console.log(`server still answers: ${stillAnswers}`);
for (const offender of offenders) console.log(`  ${offender}`);
process.exitCode = counts.server_error + counts.not_enveloped + counts.no_answer === 0 && stillAnswers ? 0 : 1;
