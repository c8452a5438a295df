// The boundary between the engine and a run type (a protocol), as types, and the registry's class.
// The engine (runner/, serving/, package/, the worker, the extension's tree and panels) asks a run type only
// through RunProtocol: which folders are its run roots, where the engine's state lies in one (a RunRoot: lock,
// status, stop file, log), how far a run is (a ProgressSnapshot every view can show), which job its detached
// worker takes, its status and stop words, its report. Stopping is the engine's (the stop file and SIGTERM to the
// lock holder); what a stop means is the run's session policy (runner/runSession.ts).
// This file imports no run type: the run types import their boundary from here, and registry.ts lists them.
import * as path from 'node:path';
import type { z } from 'zod';
import type { RunRoot } from '../runner/runRoot';
import type { DoctorLine } from '../doctor/schema';
import type { DoctorHookOptions } from '../doctor/report';
export type { DoctorHookOptions };

export type { RunRoot };

/**
 * The state a step (a run, a stage, a cell, a shard…) is in; the tree's icons are keyed by it. `waiting`: begun, its
 * server unreachable (the run waits for it, within the unreachable rule's bound).
 */
export type ProgressState = 'todo' | 'running' | 'waiting' | 'done' | 'failed' | 'skipped' | 'stopped' | 'na';

export interface ProgressCounts {
  done: number;
  todo: number;
  failed: number;
}

/** One line under a group: an FP condition, an AVTime shard or judge pass. */
export interface ProgressRow extends ProgressCounts {
  /** Unique within its group. */
  key: string;
  label: string;
  state: ProgressState;
}

/** A group of rows: an FP benchmark, an AVTime stage. */
export interface ProgressGroup extends ProgressCounts {
  /** Unique within its run. */
  key: string;
  label: string;
  state: ProgressState;
  rows: ProgressRow[];
}

/** Where one run stands, in a shape any view can show; `detail` is the protocol's own view, for its own views. */
export interface ProgressSnapshot<Detail = unknown> {
  protocol: string;
  /** The run's root folder (absolute): the package, the output root. */
  root: string;
  runId: string | null;
  /** A worker is running it now. */
  live: boolean;
  state: ProgressState;
  /** The run's last line, when it has ended. */
  summary: string | null;
  groups: ProgressGroup[];
  detail: Detail;
}

/**
 * What the detached worker takes: `worker --protocol <id> --job '<JSON>'`, the JSON checked by `schema`. The
 * function that runs it is the worker's (src/worker/jobRunners.ts), so the extension, which imports this
 * registry, never bundles a sweep, a launcher or an HTTP client.
 */
export interface WorkerJob<Job> {
  schema: z.ZodType<Job, z.ZodTypeDef, unknown>;
}

/** Runs a protocol's job in this process (the worker's stdout is its log); resolves to the exit code (0, 1, 2). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a table of runners of different jobs, each checked by its own schema
export type JobRunner<Job = any> = (job: Job) => Promise<number>;

export interface StopResult {
  /** The worker asked to stop, or null when none was running. */
  pid: number | null;
  signalled: boolean;
}

/** What `fpsweep status` shows of a run, in the protocol's own words; read again every 2 s under --wait while `live`. */
export interface StatusView {
  live: boolean;
  /** --wait's progress line (stderr, printed when it changes). */
  line: string;
  /** What `status` prints. */
  text: string;
  /** What `status --json` prints. */
  json: unknown;
  /** `status --wait` exits 0 when the run ended well, else 1. */
  ok: boolean;
}

/** What `fpsweep stop` prints for a stop request; `end`: the verb exits now with this code (1: the line goes to stderr). */
export interface StopWords {
  line: string;
  end?: 0 | 1;
}

export interface RunProtocol<Job = unknown, Detail = unknown, ReportModel = unknown> {
  /** Short, stable, a plain name: `fp`, `avtime`. Used in worker arguments, panel state, tree ids. */
  readonly id: string;
  /** For people: 'Frames × Pixels', 'AVTime-Bench'. */
  readonly title: string;
  /** The run roots this protocol recognises at `dir` itself or directly under it, sorted. */
  findRoots(dir: string): Promise<string[]>;
  /**
   * Whether `dir` itself is one of its run roots (the CLI's `--package DIR`), looking at `dir` only: findRoots also
   * lists the roots under `dir`, which on a folder of 50,000 children costs seconds. Without it the registry asks
   * findRoots.
   */
  recognises?(dir: string): Promise<boolean>;
  /** Where the engine keeps the run's lock, status file, stop file and log: the run type's layout of `root`. */
  runRoot(root: string): RunRoot;
  /**
   * Every engine state `root` holds when there can be more than one (a sharded run: one per rank, each its own lock
   * and stop file); `fpsweep stop`, the extension's Stop and `status --wait` ask each. Without it: [runRoot(root)].
   */
  runRoots?(root: string): Promise<RunRoot[]>;
  /** Where the run stands: from the live status file while its worker lives, else from the artifacts. */
  readProgress(root: string): Promise<ProgressSnapshot<Detail>>;
  readonly job: WorkerJob<Job>;
  /** The report model the report panel shows (the same the CLI prints as JSON). */
  report(root: string): Promise<ReportModel>;
  /** `fpsweep status`'s view; without it the verb shows readProgress's snapshot (cli/runText.ts). */
  statusView?(root: string): Promise<StatusView>;
  /** `fpsweep stop`'s words for the request; without it the verb's own. */
  describeStop?(req: StopResult): StopWords;
  /**
   * `fpsweep doctor`'s lines for this run type (its executables against its pins, its machine checks). `root`: the
   * folder doctor was given (--package), or null; a run type with nothing to check in one ignores it.
   */
  doctor?(root: string | null, opts: DoctorHookOptions): Promise<DoctorLine[]>;
}

/** The engine states of `root`: the run type's runRoots, else its one runRoot. */
export async function runRootsOf(p: Pick<RunProtocol, 'runRoot' | 'runRoots'>, root: string): Promise<RunRoot[]> {
  return p.runRoots ? p.runRoots(root) : [p.runRoot(root)];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds protocols of any job/detail type
export type AnyProtocol = RunProtocol<any, any, any>;

export class ProtocolRegistry {
  private readonly byId = new Map<string, AnyProtocol>();

  constructor(protocols: readonly AnyProtocol[]) {
    for (const p of protocols) this.add(p);
  }

  private add(p: AnyProtocol): void {
    if (!/^[a-z][a-z0-9-]*$/.test(p.id)) throw new Error(`protocol id '${p.id}' is not a lower-case plain name`);
    if (this.byId.has(p.id)) throw new Error(`protocol '${p.id}' is registered twice`);
    this.byId.set(p.id, p);
  }

  /** In registration order (the tree shows them in this order). */
  get all(): AnyProtocol[] {
    return [...this.byId.values()];
  }

  get ids(): string[] {
    return [...this.byId.keys()];
  }

  get(id: string): AnyProtocol | undefined {
    return this.byId.get(id);
  }

  /** The protocols whose findRoots recognise `dir` itself as a run root (the CLI's `--package DIR`). */
  async recognising(dir: string): Promise<AnyProtocol[]> {
    const own = path.resolve(dir);
    const found = await Promise.all(this.all.map(async (p) => ((p.recognises ? await p.recognises(own) : (await p.findRoots(own)).includes(own)) ? p : null)));
    return found.filter((p): p is AnyProtocol => p !== null);
  }

  /** A registry with one more protocol (tests, plug-ins); this one is left as it is. */
  with(p: AnyProtocol): ProtocolRegistry {
    return new ProtocolRegistry([...this.all, p]);
  }
}
