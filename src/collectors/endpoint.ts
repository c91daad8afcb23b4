import { z } from 'zod';
import type { AnyFamily, Family, Labels } from '../metrics/family.js';
import type { RenderedGroup } from '../metrics/render.js';
import type { UpstreamError } from '../upstream/errors.js';

/** An optional endpoint's switch in its target's config: `key: true|false`, `default` when absent. */
export interface EndpointSwitch<K extends string = string> {
  key: K;
  default: boolean;
  /** Why an operator turns it on or off (what it needs, what it costs): the config reference says it. */
  help: string;
}

/**
 * One dimension an answer can grow in and what vigil keeps of it: at most the target's config `key`
 * of its `items` get series, the others counted in the `dropped` family (which VigilSeriesDropped
 * reads). The docs list them; a test proves each key refuses what is out of range.
 */
export interface EndpointBound {
  readonly items: string;
  /** The target's config key, dotted (`nodes.max_raft_servers`). */
  readonly key: string;
  readonly dropped: string;
}

/** What a request carries beyond its method and path. */
export interface Sent {
  /** The values of the path's `{x}` placeholders (from the target, the run's item or an earlier answer). */
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Which page of a listing it asks for (from 1): for what reading the page says of it, never sent. */
  readonly page?: number;
}

/** One answer of an endpoint, read through its schema (or its decoding task). */
export interface Answer<P> {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly value: P;
}

/**
 * Fetches one answer; `more` adds to what the declaration sends (the query of a listing's next page);
 * `received` is told an offloaded answer's size before it is decoded (to refuse a listing past its bound).
 */
export type Get<P> = (more?: Sent, received?: (bytes: number) => void) => Promise<Answer<P>>;

/** The endpoints a step calls from inside its own call (a team's show within a listing): how to call one, if it is switched on. */
export interface Within {
  get<E extends { readonly id: string }>(endpoint: E): ((item: string) => Promise<EndpointValue<E>>) | undefined;
}

/**
 * A large answer decoded by a pure task (`src/collectors/decoding.ts` lists them): on a worker
 * thread from `from` bytes on, in the collection thread below; remembered by the target's memo, so
 * an answer byte-identical to the last one of the same endpoint and query is not decoded again.
 * Made with `offloaded`, which holds the task's input and the input's maker to one type.
 */
export interface Offloaded<C, I, P> {
  readonly task: (input: never) => P;
  readonly from: number;
  readonly input: (body: Buffer, call: C, item: I, sent: Sent) => unknown;
}

export const offloaded = <C, I, X, P>(o: {
  task: (input: X) => P;
  from: number;
  input: (body: Buffer, call: C, item: I, sent: Sent) => X;
}): Offloaded<C, I, P> => o as Offloaded<C, I, P>;

/**
 * One upstream endpoint a collector polls, declared once, in the file of its own
 * (`src/collectors/<upstream>/<name>.ts`, its id `<upstream>/<name>`): how it is called (the path,
 * what the request sends, how the answer is read), the families it feeds, what its `_up` and "not
 * applicable" mean, and for an optional endpoint its config switch. The id is its one name: the
 * `endpoint` label of vigil_upstream_*, the prefix of its errors, its part of a run and its row in
 * the docs. The collector's plans say when it is called.
 *
 * `C` is what its calls share in one target's job (the collector's call: client, credentials, state
 * kept across runs), `I` the run's item it is called for (a kind, a node), `S` one answer as its
 * schema reads it, `P` one answer's value (S, or what the decoding task makes of it), `V` what its
 * families map.
 */
export interface Endpoint<C = never, I = never, S = unknown, P = S, V = P, K extends string = string> {
  readonly id: string;
  readonly method: 'GET' | 'POST';
  /** As the upstream's API documents it; `{x}` is filled from what `send` gives. */
  readonly path: string;
  /** One answer's schema (tolerant of extra fields, strict on what is used). */
  readonly schema: z.ZodType<S>;
  /** What the request sends beyond its path: the placeholders' values, the query, the headers (credentials), a body. */
  readonly send?: (call: C, item: I) => Sent | Promise<Sent>;
  /** Statuses >= 400 whose body is an answer, not a failure (an unhealthy agent's 500). */
  readonly dataStatuses?: readonly number[];
  /** A large answer's decoding, off the collection thread (the task also checks it against the schema). */
  readonly offload?: Offloaded<C, I, P>;
  /** How the run's value comes from the answers (a listing's pages, a field of the answer); without it, the one answer's value. */
  readonly read?: (get: Get<P>, call: C, item: I, within: Within) => Promise<V>;
  /** What drives a listing's pages, for the docs: `per_page, next_token`. */
  readonly paged?: string;
  /** Labels every sample of its part carries beyond those its job gives (the target's name, ...). */
  readonly labels?: Labels;
  /** The part's `_up`: its sample survives a failure (0), and is the only one that does. */
  readonly up?: Family<boolean>;
  /** Pure mappings of the value, rendered in the collection thread. */
  readonly families: readonly Family<V>[];
  /** Lines the decoding task rendered already (off the collection thread, for a large answer), with the families they hold. */
  readonly rendered?: { readonly lines: (value: V) => RenderedGroup; readonly families: readonly AnyFamily[] };
  /** How the upstream says the endpoint does not apply to it: then the part exports nothing, `_up` included, and is no failure. */
  readonly notApplicable?: { readonly test: (err: UpstreamError) => boolean; readonly means: string };
  /** The permission or policy the upstream's API says the call needs: `--config.check.probe` names it when the call is refused. */
  readonly needs?: string;
  /**
   * What a call does to the upstream beyond reading it, as `it would ...` ends (`start a merkle
   * check on the cluster`): `--config.check.probe` runs no job that calls it, and says so.
   */
  readonly acts?: string;
  readonly switch?: EndpointSwitch<K>;
  /** What vigil keeps of each dimension the answer can grow in (servers, peers, nodes...). */
  readonly bounds?: readonly EndpointBound[];
}

/** An endpoint of any call, item and value, as the lists that gather endpoints hold it. */
export interface AnyEndpoint extends Omit<Endpoint<never, never, unknown, unknown, never, string>, 'schema' | 'offload' | 'read' | 'families' | 'rendered'> {
  readonly schema: z.ZodType;
  readonly offload?: {
    readonly task: (input: never) => unknown;
    readonly from: number;
    readonly input: (body: Buffer, call: never, item: never, sent: Sent) => unknown;
  };
  readonly read?: (get: never, call: never, item: never, within: Within) => Promise<unknown>;
  readonly families: readonly AnyFamily[];
  readonly rendered?: { readonly lines: (value: never) => RenderedGroup; readonly families: readonly AnyFamily[] };
}

/** What an endpoint's value is: what its families map. */
export type EndpointValue<E> = E extends Endpoint<infer _C, infer _I, infer _S, infer _P, infer V, infer _K> ? V : never;

/** Declares an endpoint; keeps its switch's key as a literal type, so a target's config schema knows it. */
/** Every declared endpoint's schema, by id: what a decoding thread reads a large answer of an endpoint without a task of its own with. */
const SCHEMAS = new Map<string, z.ZodType>();

export const endpoint = <C, I, S, P = S, V = P, const K extends string = never>(e: Endpoint<C, I, S, P, V, K>): Endpoint<C, I, S, P, V, K> => {
  SCHEMAS.set(e.id, e.schema);
  return e;
};

/** The schema the endpoint `id` was declared with (its module imported in this thread). */
export function schemaOf(id: string): z.ZodType {
  const schema = SCHEMAS.get(id);
  if (!schema) throw new Error(`no endpoint ${id} is declared in this thread`);
  return schema;
}

/** Every family an endpoint's answer feeds, its `_up` first. */
export const feedsOf = (e: Pick<AnyEndpoint, 'up' | 'families' | 'rendered'>): AnyFamily[] =>
  [...(e.up ? [e.up] : []), ...e.families, ...(e.rendered?.families ?? [])] as AnyFamily[];

type SwitchKey<E> = E extends { readonly switch?: EndpointSwitch<infer K> } ? K : never;
export type SwitchFields<E extends readonly AnyEndpoint[]> = { [K in SwitchKey<E[number]>]: z.ZodDefault<z.ZodBoolean> };

/** The config keys of a collector's optional endpoints, each a boolean with its declared default. */
export function switchFields<const E extends readonly AnyEndpoint[]>(endpoints: E): SwitchFields<E> {
  const fields: Record<string, z.ZodDefault<z.ZodBoolean>> = {};
  for (const e of endpoints) if (e.switch) fields[e.switch.key] = z.boolean().default(e.switch.default);
  return fields as SwitchFields<E>;
}

/** Whether a target switches an endpoint on (every one without a switch is). */
export const switchedOn = (e: Pick<AnyEndpoint, 'switch'>, target: object): boolean => !e.switch || (target as Record<string, unknown>)[e.switch.key] === true;
