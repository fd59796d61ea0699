// A pino logger whose lines a test reads back as parsed records (progress and watch logs).
import { Writable } from 'node:stream';
import { pino } from 'pino';

export function captureLogger(): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
