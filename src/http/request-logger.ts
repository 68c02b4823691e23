import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, LevelWithSilentOrString, LogFn } from 'pino';

/**
 * A request's logger that makes its pino child (the one carrying `reqId`) only when a line at an
 * enabled level is written. Fastify builds a child logger for every request; at the usual
 * production level most requests write nothing, and building the child (copying the parent,
 * serialising the bindings) was a measurable share of a small route's time (docs/performance.md).
 * A line that is written looks exactly as it would from the eager child.
 */
type LevelAwareLogger = FastifyBaseLogger & { isLevelEnabled(level: LevelWithSilentOrString): boolean };

class LazyRequestLogger {
  readonly #parent: LevelAwareLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: LevelAwareLogger | undefined;

  constructor(parent: LevelAwareLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #logger(): LevelAwareLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options) as LevelAwareLogger;
    return this.#child;
  }

  #write(level: Level, args: Parameters<LogFn>): void {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return;
    (this.#logger()[level] as (...args: unknown[]) => void)(...args);
  }

  get level(): LevelWithSilentOrString {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.#logger().level = level;
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }

  fatal(...args: Parameters<LogFn>): void {
    this.#write('fatal', args);
  }
  error(...args: Parameters<LogFn>): void {
    this.#write('error', args);
  }
  warn(...args: Parameters<LogFn>): void {
    this.#write('warn', args);
  }
  info(...args: Parameters<LogFn>): void {
    this.#write('info', args);
  }
  debug(...args: Parameters<LogFn>): void {
    this.#write('debug', args);
  }
  trace(...args: Parameters<LogFn>): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }
}

export function lazyRequestLogger(
  parent: LevelAwareLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
