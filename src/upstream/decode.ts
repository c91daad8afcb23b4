import { UpstreamError } from './errors.js';

/** Parses a JSON body; an empty body is undefined, anything else unparsable a `decode` failure. */
export function decode(text: string, endpoint: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text: say where it breaks without echoing upstream bytes.
    throw new UpstreamError('decode', `${endpoint}: response is not JSON (${text.length} characters)`);
  }
}

/** The JSON value of `text`, if it is JSON (a data status's body); undefined otherwise. */
export function tryJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
