// Each request's logger (fastify's `request.log`), made only when something is logged through it.
// Fastify gives every request a pino child bound to its id; making one runs pino's redaction over
// the bindings and copies the parent's methods, ~3% of the JS thread's time under search load
// (bench/README.md, "The request path's own costs"). Request logging is off (app.ts), so nearly
// every request finishes without logging: the child is made on the first call instead.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

/** pino's widest call form: an object or message, then format arguments. */
type LogArguments = [unknown, ...unknown[]];

class DeferredRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The real child, made once. */
  private logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  /** pino's methods take many forms; this passes any of them on, with the child as `this`. */
  private write(method: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent', args: LogArguments): void {
    const logger = this.logger();
    (logger[method] as (...forwarded: LogArguments) => void).apply(logger, args);
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger().level = level;
  }

  // Methods on the prototype, not closures per request; pino's need their logger as `this`.
  fatal(...args: LogArguments): void {
    this.write('fatal', args);
  }
  error(...args: LogArguments): void {
    this.write('error', args);
  }
  warn(...args: LogArguments): void {
    this.write('warn', args);
  }
  info(...args: LogArguments): void {
    this.write('info', args);
  }
  debug(...args: LogArguments): void {
    this.write('debug', args);
  }
  trace(...args: LogArguments): void {
    this.write('trace', args);
  }
  silent(...args: LogArguments): void {
    this.write('silent', args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: the request's logger, made when first used. */
export function deferredRequestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  // The class answers every FastifyBaseLogger call; its methods take pino's widest form rather
  // than repeat each overload.
  return new DeferredRequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
