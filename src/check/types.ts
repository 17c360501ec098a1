/**
 * The client report card's shapes: a check, the runs it makes against its own worlds, and its verdict. The card is
 * `petstore-client-checks/2`: a check keeps its id and meaning within a version (docs/check-client.md, "Versions").
 */
import type { JournalEntry } from '../journal/journal.js'
import type { ScenarioInput } from '../scenarios/schema.js'
import type { PetStoreServerOptions } from '../server/http-server.js'

export const CARD_VERSION = 'petstore-client-checks/2'

/**
 * The versions a report may carry: the shape of a report (JSON, JUnit, CTRF) is the same in both, so a reader of `/1`
 * reports reads `/2` ones; what changed is which checks there are and how they judge (docs/check-client.md, "Versions").
 */
export type CardVersion = 'petstore-client-checks/1' | typeof CARD_VERSION

/** One call the client under test makes with its SDK. */
export type TaskName = 'list-pets' | 'get-pet' | 'create-pet'

/** What a task is given: where the API is, the key to send, and for `get-pet` the id to ask for. */
export interface TaskInput {
  /** The API's base URL, ending in `/v1`. */
  readonly baseUrl: string
  readonly key: string
  readonly petId?: string
}

/** How a task ended: the SDK returned a result, surfaced an error, or was still running at the check's limit. */
export type TaskOutcome =
  | { readonly ended: 'result'; readonly ms: number }
  | { readonly ended: 'error'; readonly ms: number; readonly message: string }
  | { readonly ended: 'limit'; readonly ms: number }

/** Runs one task of the client under test, stopping it after `limitMs`. */
export type TaskRunner = (task: TaskName, input: TaskInput, limitMs: number) => Promise<TaskOutcome>

/** One world a check sets up and the one task the client runs in it. */
export interface CheckRun {
  /** Names the run in the evidence, when a check makes several. */
  readonly label?: string
  readonly task: TaskName
  /** The scenario of this world (its own keys' counters, faults, clock); default: the default world. */
  readonly scenario?: Omit<ScenarioInput, 'name' | 'description'>
  /** World options besides the scenario (the `Retry-After` format, the name limit). */
  readonly options?: Pick<PetStoreServerOptions, 'rateLimit' | 'maxNameLength'>
  /** Send this key instead of the card's (a key the world does not know: 401). */
  readonly key?: string
  readonly petId?: string
  /** The status this run's world answers the task's first request with, when the check rests on it. */
  readonly provokes?: number
  /** How long the task may run; default `DEFAULT_LIMIT_MS`. */
  readonly limitMs?: number
  /** Start the task this long after the check starts (runs of one check staggered in time). */
  readonly startAfterMs?: number
}

/** What a run left behind: how the task ended, and the world's journal of its requests, oldest first. */
export interface RunEvidence {
  readonly run: CheckRun
  readonly outcome: TaskOutcome
  readonly entries: readonly JournalEntry[]
}

export type CheckStatus = 'passed' | 'failed' | 'not-applicable'

export interface Verdict {
  readonly status: CheckStatus
  /** One sentence: why this verdict. */
  readonly reason: string
  /** The requests the verdict rests on, one line each: time, method, path, status and the header that set the rule. */
  readonly evidence: readonly string[]
  /** The fix for what this client did, when the check's own `fix` would point elsewhere (a check failed two ways). */
  readonly fix?: string
}

/**
 * A check: its rule, the runs that provoke it and how it judges them. Two checks may share their `runs` (the same
 * array): the runs are made once in a card and both checks judge them.
 */
export interface CheckDefinition {
  /** Stable within the card's version, e.g. `rate.retry-after-seconds`. */
  readonly id: string
  readonly level: 'required' | 'recommended'
  /** The rule, in one line. */
  readonly rule: string
  /** Where the rule comes from: the spec's section or an RFC; for a `recommended` check, the advice's source. */
  readonly source: string
  /** What to change in the client when it fails, in one sentence. */
  readonly fix: string
  readonly runs: readonly CheckRun[]
  judge(runs: readonly RunEvidence[]): Verdict
}

/** A check's verdict, with what the check says of itself. */
export interface CheckResult extends Omit<Verdict, 'fix'>, Pick<CheckDefinition, 'id' | 'level' | 'rule' | 'source' | 'fix'> {
  readonly durationMs: number
}

export interface CardReport {
  readonly card: CardVersion
  /**
   * No required check failed, and the client met the condition of one check at least (one passed or failed): a
   * recommended check that failed leaves it `true`.
   */
  readonly ok: boolean
  readonly startedAt: string
  readonly durationMs: number
  readonly checks: readonly CheckResult[]
}

/** A task runs at most this long unless its check says otherwise. */
export const DEFAULT_LIMIT_MS = 10_000
