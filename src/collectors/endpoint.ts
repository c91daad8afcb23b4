import { z } from 'zod';
import { collectPart, type PartOutcome } from '../jobs/part.js';
import type { AnyFamily, Family, Labels } from '../metrics/family.js';
import type { RenderedGroup } from '../metrics/render.js';
import type { UpstreamError } from '../upstream/errors.js';
import type { Turns } from '../support/turns.js';

/** An optional endpoint's switch in its target's config: `key: true|false`, `default` when absent. */
export interface EndpointSwitch<K extends string = string> {
  key: K;
  default: boolean;
  /** Why an operator turns it on or off (what it needs, what it costs): the config reference says it. */
  help: string;
}

/**
 * One upstream endpoint a collector polls, declared once: how it is called and checked, the part
 * of its job's run that carries its series, the families it feeds, what its `_up` and "not
 * applicable" mean, and for an optional endpoint its config switch. The job builder, the config's
 * switches, the generated docs, the corpus of real answers, the fuzzers and the benches all loop over
 * the collectors' endpoints, so an endpoint cannot be left out of any of them.
 */
export interface Endpoint<In = never, V = unknown, K extends string = string> {
  /** Names the endpoint in the corpus of real answers (`endpoint`), the docs and the tests: `agent/members`. */
  readonly id: string;
  readonly method: 'GET' | 'POST';
  /** As the upstream's API documents it; `{x}` is filled from the target's config or an earlier answer. */
  readonly path: string;
  /** The answer's schema (tolerant of extra fields, strict on what is used). */
  readonly schema: z.ZodType;
  /** When a run calls it: every run, behind its switch, or after what earlier answer. */
  readonly when: string;
  /** The run's part that carries its series (`{kind}`: one part per replication kind). */
  readonly part: string;
  /** Labels every sample of its part carries beyond those its job gives (the target's name, ...). */
  readonly labels?: Labels;
  /** Fetches and checks one answer: the one call every run of the daemon makes, whatever drives it. */
  readonly fetch: (input: In) => Promise<V>;
  /** The part's `_up`: its sample survives a failure (0), and is the only one that does. */
  readonly up?: Family<boolean>;
  /** Pure mappings of the answer, rendered in the collection thread. */
  readonly families: readonly Family<V>[];
  /** Lines the fetch rendered already (off the collection thread, for a large answer), with the families they hold. */
  readonly rendered?: { readonly lines: (value: V) => RenderedGroup; readonly families: readonly AnyFamily[] };
  /** Families the collector's job derives from this answer beyond its part (the seal from a status). */
  readonly derived?: readonly AnyFamily[];
  /** How the upstream says the endpoint does not apply to it: then the part exports nothing, `_up` included, and is no failure. */
  readonly notApplicable?: { readonly test: (err: UpstreamError) => boolean; readonly means: string };
  /** The permission or policy the upstream's API says the call needs: `--config.check.probe` names it when the call is refused. */
  readonly needs?: string;
  readonly switch?: EndpointSwitch<K>;
}

/** An endpoint of any input and value, as the lists that gather endpoints hold it. */
export type AnyEndpoint = Omit<Endpoint<never, never, string>, 'fetch'> & { readonly fetch: (input: never) => Promise<unknown> };

/** What an endpoint's fetch takes, and what it gives. */
export type EndpointInput<E> = E extends { readonly fetch: (input: infer I) => Promise<unknown> } ? I : never;
export type EndpointValue<E> = E extends { readonly fetch: (input: never) => Promise<infer V> } ? V : never;

/** Declares an endpoint; keeps its switch's key as a literal type, so a target's config schema knows it. */
export const endpoint = <In, V, const K extends string = never>(e: Endpoint<In, V, K>): Endpoint<In, V, K> => e;

/** Every family an endpoint's answer feeds, its `_up` first. */
export const feedsOf = (e: AnyEndpoint): AnyFamily[] =>
  [...(e.up ? [e.up] : []), ...e.families, ...(e.rendered?.families ?? []), ...(e.derived ?? [])] as AnyFamily[];

/** One part of a run from one endpoint, as declared: its fetch, families, `_up` and not-applicable rule. */
export function collectEndpoint<E extends AnyEndpoint>(
  endpoint: E,
  input: EndpointInput<E>,
  opts: { part?: string; context: Labels; turns: Turns },
): Promise<PartOutcome<EndpointValue<E>>> {
  // The fetch gives the value its own families map: one endpoint's input and value always agree.
  const e = endpoint as unknown as Endpoint<EndpointInput<E>, EndpointValue<E>, string>;
  return collectPart({
    part: opts.part ?? e.part,
    context: e.labels ? { ...opts.context, ...e.labels } : opts.context,
    fetch: () => e.fetch(input),
    families: e.families,
    up: e.up,
    notApplicable: e.notApplicable?.test,
    rendered: e.rendered?.lines,
    turns: opts.turns,
  });
}

type SwitchKey<E> = E extends { readonly switch?: EndpointSwitch<infer K> } ? K : never;

/** The config keys of a collector's optional endpoints, each a boolean with its declared default. */
export function switchFields<const E extends readonly AnyEndpoint[]>(endpoints: E): { [K in SwitchKey<E[number]>]: z.ZodDefault<z.ZodBoolean> } {
  const fields: Record<string, z.ZodDefault<z.ZodBoolean>> = {};
  for (const e of endpoints) if (e.switch) fields[e.switch.key] = z.boolean().default(e.switch.default);
  return fields as { [K in SwitchKey<E[number]>]: z.ZodDefault<z.ZodBoolean> };
}

/** The endpoints of `endpoints` a target switches on (and every one without a switch). */
export const switchedOn = <E extends AnyEndpoint>(endpoints: readonly E[], target: object): E[] =>
  endpoints.filter((e) => !e.switch || (target as Record<string, unknown>)[e.switch.key] === true);
