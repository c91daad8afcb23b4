import type http from 'node:http';
import { readJson } from '../common/http.js';
import { badRequest } from './api-error.js';

export type Body = Record<string, unknown>;

/** Reads a JSON object body; an empty body is `{}` because the real service treats it so. */
export async function readBody(req: http.IncomingMessage): Promise<Body> {
  let parsed: unknown;
  try {
    parsed = await readJson(req);
  } catch (err) {
    throw badRequest(`failed to parse JSON input: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (parsed === undefined || parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('request body must be a JSON object');
  return parsed as Body;
}

function optional<T>(body: Body, key: string, is: (v: unknown) => v is T, what: string): T | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!is(v)) throw badRequest(`"${key}" must be ${what}`);
  return v;
}

function required<T>(value: T | undefined, key: string): T {
  if (value === undefined || value === '') throw badRequest(`missing required parameter "${key}"`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

export const optionalString = (body: Body, key: string): string | undefined => optional(body, key, isString, 'a string');
export const requiredString = (body: Body, key: string): string => required(optionalString(body, key), key);
export const optionalBool = (body: Body, key: string): boolean | undefined => optional(body, key, isBool, 'a boolean');
export const requiredBool = (body: Body, key: string): boolean => required(optionalBool(body, key), key);
export const optionalStringArray = (body: Body, key: string): string[] | undefined => optional(body, key, isStringArray, 'an array of strings');

/** Durations as the service takes them: "30m", "1h", "90s" or a bare number of seconds. */
export function parseTtlSeconds(text: string): number {
  const m = /^(\d+)(s|m|h|d)?$/.exec(text.trim());
  if (!m) throw badRequest(`invalid ttl "${text}"`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  const seconds = Number(m[1]) * unit;
  if (seconds <= 0) throw badRequest('ttl must be positive');
  return seconds;
}
