import pino, { type DestinationStream, type Logger } from 'pino';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export const LOG_FORMATS = ['json', 'logfmt'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Whatever a log line carries that could hold a secret is censored, at any depth pino can reach. */
export const REDACT_PATHS = [
  'token',
  'password',
  'authorization',
  '*.token',
  '*.password',
  '*.authorization',
  'headers["x-secrets-token"]',
  'headers["x-scheduler-token"]',
  '*.headers["x-secrets-token"]',
  '*.headers["x-scheduler-token"]',
  'dr_operation_token',
  '*.dr_operation_token',
];

function logfmtValue(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return /^[^\s="\\]+$/.test(s) ? s : `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** Turns pino's JSON lines into logfmt (`ts=… level=info msg="…" key=value`). */
export function logfmtLine(json: string): string {
  const o = JSON.parse(json) as Record<string, unknown>;
  const { time, level, msg, ...rest } = o;
  const head = [`ts=${logfmtValue(time)}`, `level=${logfmtValue(level)}`, ...(msg !== undefined ? [`msg=${logfmtValue(msg)}`] : [])];
  return `${[...head, ...Object.entries(rest).map(([k, v]) => `${k}=${logfmtValue(v)}`)].join(' ')}\n`;
}

function logfmtStream(out: NodeJS.WritableStream): DestinationStream {
  return { write: (line: string) => void out.write(logfmtLine(line)) };
}

export function createLogger(
  level: LogLevel = 'info',
  format: LogFormat = 'logfmt',
  out: NodeJS.WritableStream = process.stderr,
): Logger {
  const opts: pino.LoggerOptions = {
    level,
    base: undefined,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return pino(opts, format === 'json' ? (out as DestinationStream) : logfmtStream(out));
}
