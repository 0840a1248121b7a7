/**
 * Structured JSON logs, one object per line. Secrets never reach them: fields whose names say they
 * hold a credential are dropped, and every configured secret value is masked in the finished line,
 * a last guard against one slipping into an error message.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; standard output by default. */
  sink?: (line: string) => void;
  /** Values to mask wherever they appear. */
  secrets?: readonly string[];
}

/** Levels in order: a logger writes what ranks at or above its own. */
export const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const CREDENTIAL_FIELD = /authorization|secret|password|private.?key|mnemonic|api.?key|access.?token|cookie/i;
const MASK = '[redacted]';

let stdoutGuarded = false;

/**
 * Standard output, where a log collector reads. If the collector goes away, writing fails (EPIPE); that
 * must not take the proxy, and the payments it serves, down with it.
 */
function standardOutput(line: string): void {
  if (!stdoutGuarded) {
    process.stdout.on('error', () => undefined);
    stdoutGuarded = true;
  }
  process.stdout.write(`${line}\n`);
}

export function createLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const threshold = LEVEL_RANK[options.level ?? 'info'];
  const sink = options.sink ?? standardOutput;
  // A secret may sit in the line as written or JSON-escaped.
  const secrets = (options.secrets ?? [])
    .filter((value) => value.length >= 8)
    .flatMap((value) => [value, JSON.stringify(value).slice(1, -1)]);

  const write = (level: LogLevel, msg: string, fields: LogFields = {}) => {
    if (LEVEL_RANK[level] < threshold) return;
    let line = JSON.stringify(
      { time: new Date().toISOString(), level, msg, ...bound, ...fields },
      (key, value: unknown) => {
        if (key && CREDENTIAL_FIELD.test(key)) return MASK;
        if (value instanceof Error) return { name: value.name, message: value.message };
        return value;
      },
    );
    for (const secret of secrets) line = line.replaceAll(secret, MASK);
    sink(line);
  };

  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}
