import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { redactedPaths } from '../logging.js';
import { deferredRequestLogger } from './request-logger.js';

/** A pino logger at `level` whose JSON lines land in `lines`. */
function capturingLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const logger = pino({ level, redact: { paths: redactedPaths, censor: '[redacted]' } }, destination);
  return { logger, lines };
}

describe('request logger', () => {
  it('a request that logs nothing never makes a child logger', () => {
    const { logger } = capturingLogger('info');
    const child = vi.spyOn(logger, 'child');
    const quiet = deferredRequestLogger(logger, { reqId: 'req-1' }, {});
    expect(quiet.level).toBe('info');
    expect(child).not.toHaveBeenCalled();
    deferredRequestLogger(logger, { reqId: 'req-2' }, {}).warn('logged');
    expect(child).toHaveBeenCalledTimes(1);
    expect(child).toHaveBeenCalledWith({ reqId: 'req-2' }, {});
  });

  it("a request's log lines carry its id and are redacted as the server's are", () => {
    const { logger, lines } = capturingLogger('info');
    const requestLogger = deferredRequestLogger(logger, { reqId: 'req-7' }, {});
    requestLogger.error({ headers: { authorization: 'Bearer secret' } }, 'failed %s', 'badly');
    requestLogger.info('plain message');
    requestLogger.debug('dropped');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ reqId: 'req-7', level: 50, msg: 'failed badly', headers: { authorization: '[redacted]' } });
    expect(lines[1]).toMatchObject({ reqId: 'req-7', level: 30, msg: 'plain message' });
  });

  it("a route's own log level applies to its requests' loggers", () => {
    const { logger, lines } = capturingLogger('info');
    const requestLogger = deferredRequestLogger(logger, { reqId: 'req-3' }, { level: 'debug' });
    expect(requestLogger.level).toBe('debug');
    requestLogger.debug('kept');
    expect(lines).toMatchObject([{ reqId: 'req-3', msg: 'kept' }]);
    const grandchild = requestLogger.child({ step: 'inner' });
    grandchild.debug('inner line');
    expect(lines[1]).toMatchObject({ reqId: 'req-3', step: 'inner', msg: 'inner line' });
  });
});
