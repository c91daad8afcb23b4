import { stableUuid } from './identity.js';
import { nanos, type JobStub } from './jobs.js';

/** The states an evaluation can be in (structs.EvalStatus*). */
export const EVAL_STATUSES = ['blocked', 'pending', 'complete', 'failed', 'canceled'] as const;
export type EvalStatus = (typeof EVAL_STATUSES)[number];

/** Why a task group's allocations could not be placed (structs.AllocMetric), as a blocked evaluation carries it. */
export interface AllocMetric {
  NodesEvaluated: number;
  NodesFiltered: number;
  NodesInPool: number;
  NodesAvailable: Record<string, number>;
  ClassFiltered: Record<string, number> | null;
  ConstraintFiltered: Record<string, number> | null;
  NodesExhausted: number;
  ClassExhausted: Record<string, number> | null;
  DimensionExhausted: Record<string, number> | null;
  QuotaExhausted: string[] | null;
  ResourcesExhausted: Record<string, unknown> | null;
  Scores: Record<string, number> | null;
  AllocationTime: number;
  CoalescedFailures: number;
}

export interface SimEval {
  ID: string;
  Namespace: string;
  Priority: number;
  Type: string;
  TriggeredBy: string;
  JobID: string;
  JobModifyIndex: number;
  NodeID: string;
  Status: EvalStatus;
  StatusDescription: string;
  PreviousEval: string;
  BlockedEval: string;
  ClassEligibility: Record<string, boolean> | null;
  EscapedComputedClass: boolean;
  QueuedAllocations: Record<string, number> | null;
  FailedTGAllocs: Record<string, AllocMetric> | null;
  CreateIndex: number;
  ModifyIndex: number;
  CreateTime: number;
  ModifyTime: number;
}

/** The scheduler's description of the evaluation it blocks for what it could not place. */
export const BLOCKED_DESCRIPTION = 'created to place remaining allocations';

/** An evaluation of `job` made at raft index `index`: `seq` keeps IDs apart within a region. */
export function makeEval(region: string, seq: number, job: JobStub, status: EvalStatus, index: number, nowMs: number): SimEval {
  const queued = Object.fromEntries(Object.keys(job.JobSummary.Summary).map((g) => [g, 0]));
  return {
    ID: stableUuid(`eval:${region}:${seq}`),
    Namespace: job.Namespace,
    Priority: job.Priority,
    Type: job.Type,
    TriggeredBy: job.ParentID && job.ParentID !== '' ? 'periodic-job' : 'job-register',
    JobID: job.ID,
    JobModifyIndex: job.JobModifyIndex,
    NodeID: '',
    Status: status,
    StatusDescription: '',
    PreviousEval: '',
    BlockedEval: '',
    ClassEligibility: null,
    EscapedComputedClass: false,
    QueuedAllocations: status === 'complete' ? queued : null,
    FailedTGAllocs: null,
    CreateIndex: index,
    ModifyIndex: index,
    CreateTime: nanos(nowMs),
    ModifyTime: nanos(nowMs),
  };
}

/** Blocks `ev` (made by makeEval) on `queued` allocations of `group` that no node of a pool of `nodes` has room for. */
export function blockEval(ev: SimEval, previous: SimEval, group: string, queued: number, nodes: number): void {
  const failed = { [group]: exhausted(nodes, queued) };
  Object.assign(ev, {
    Status: 'blocked',
    TriggeredBy: 'queued-allocs',
    StatusDescription: BLOCKED_DESCRIPTION,
    PreviousEval: previous.ID,
    ClassEligibility: { 'v1:1234567890': true },
    FailedTGAllocs: failed,
    QueuedAllocations: null,
  } satisfies Partial<SimEval>);
  Object.assign(previous, { BlockedEval: ev.ID, FailedTGAllocs: failed, QueuedAllocations: { [group]: queued } } satisfies Partial<SimEval>);
}

function exhausted(nodes: number, queued: number): AllocMetric {
  return {
    NodesEvaluated: nodes,
    NodesFiltered: 0,
    NodesInPool: nodes,
    NodesAvailable: { dc1: nodes },
    ClassFiltered: null,
    ConstraintFiltered: null,
    NodesExhausted: nodes,
    ClassExhausted: null,
    DimensionExhausted: { memory: nodes },
    QuotaExhausted: null,
    ResourcesExhausted: null,
    Scores: null,
    AllocationTime: 41_000,
    CoalescedFailures: Math.max(0, queued - 1),
  };
}

const FILTER_FIELDS = ['Status', 'JobID', 'Namespace', 'Type', 'TriggeredBy'] as const;
type FilterField = (typeof FILTER_FIELDS)[number];
type Term = { field: FilterField; value: string };
export type EvalFilter = (ev: SimEval) => boolean;

/**
 * The subset of go-bexpr the simulator evaluates: `Field == "value"` terms (fields of FILTER_FIELDS)
 * joined by ` and ` within ` or `. Anything else gives the error text, as if the real server could not
 * read it (the real server reads far more: a filter outside the subset is refused here, not there).
 */
export function parseEvalFilter(filter: string): EvalFilter | { error: string } {
  const alternatives: Term[][] = [];
  for (const alternative of filter.trim().split(/\s+or\s+/)) {
    const terms: Term[] = [];
    for (const term of alternative.split(/\s+and\s+/)) {
      const m = /^\(?\s*(\w+)\s*==\s*"([^"\\]*)"\s*\)?$/.exec(term.trim());
      const field = m?.[1] as FilterField | undefined;
      if (!m || !field || !FILTER_FIELDS.includes(field)) {
        return { error: `1:1 (0): no match found, expected: an expression the simulator reads, got ${JSON.stringify(term.trim())}` };
      }
      terms.push({ field, value: m[2] ?? '' });
    }
    alternatives.push(terms);
  }
  return (ev) => alternatives.some((terms) => terms.every((t) => ev[t.field] === t.value));
}
