// pino JSON logs; pretty on a terminal. Credentials are redacted wherever they could appear.
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["api-key"]',
  'headers.authorization',
  'headers["api-key"]',
  '*.password',
  '*.current_password',
  '*.new_password',
  '*.token',
  '*.jwt_secret',
  '*.setup_code',
  '*.api_key',
  '*.admin_password',
];

export function createLogger(config: Config): Logger {
  const pretty = config.log.pretty ?? Boolean(process.stdout.isTTY);
  return pino({
    level: config.log.level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
  });
}
