import pino, { type DestinationStream, type Logger } from 'pino';
import { capText, MAX_TEXT } from './cap-text.js';

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

/**
 * Characters a terminal or a log shipper could act on: C0 controls (CR forges a line, ESC starts an
 * ANSI sequence), DEL, C1 controls (0x9B is a one-byte CSI) and the Unicode line separators.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds, to escape them
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const escapeControl = (c: string) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function logfmtValue(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  // eslint-disable-next-line no-control-regex -- a bare value holds no control character
  if (/^[^\s="\\\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/.test(s)) return s;
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(CONTROL, escapeControl)}"`;
}

/**
 * A JSON line with the characters JSON.stringify leaves raw (C1 controls, line separators) escaped:
 * they can only sit inside strings, where `\uXXXX` means the same.
 */
export function safeJsonLine(line: string): string {
  return line.replace(/[\u007f-\u009f\u2028\u2029]/g, escapeControl);
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

/**
 * A log line's fields with every string cut to MAX_TEXT characters, one level into objects and
 * arrays too (`files: [...]`, `folded: {...}`): a field can carry upstream text (a node's address, a
 * part named after it), and a megabyte of it at every failed poll is a log flood. Errors are left to
 * pino's serializer; their messages are capped where they are made.
 */
export function boundFields(o: Record<string, unknown>): Record<string, unknown> {
  const cut = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return v.length > MAX_TEXT ? capText(v) : v;
    if (depth > 0 || v === null || typeof v !== 'object' || v instanceof Error) return v;
    if (Array.isArray(v)) return v.some((x) => typeof x === 'string' && x.length > MAX_TEXT) ? v.map((x) => cut(x, depth + 1)) : v;
    const entries = Object.entries(v);
    return entries.some(([, x]) => typeof x === 'string' && x.length > MAX_TEXT) ? Object.fromEntries(entries.map(([k, x]) => [k, cut(x, depth + 1)])) : v;
  };
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(o)) {
    const c = cut(v, 0);
    if (c !== v) (out ??= { ...o })[k] = c;
  }
  return out ?? o;
}

export function createLogger(level: LogLevel = 'info', format: LogFormat = 'logfmt', out: NodeJS.WritableStream = process.stderr): Logger {
  const opts: pino.LoggerOptions = {
    level,
    base: undefined,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: boundFields },
  };
  return pino(opts, format === 'json' ? { write: (line: string) => void out.write(safeJsonLine(line)) } : logfmtStream(out));
}
