import { accessSync, constants } from 'node:fs';
import { z } from 'zod';

/** Why a file cannot be read now (its error code), or undefined when it can. */
export function unreadable(p: string): string | undefined {
  try {
    accessSync(p, constants.R_OK);
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? 'error';
  }
}

/** A path that must be readable now; its content is read when used, so a rotated secret is picked up. */
export const readableFile = z.string().superRefine((p, ctx) => {
  const problem = unreadable(p);
  if (problem) ctx.addIssue({ code: 'custom', message: `cannot read file "${p}" (${problem})` });
});
