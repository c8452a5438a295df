// What a verb module of `fpsweep` is: the engine's verbs (src/cli/verbs/), and the ones a run type brings
// (src/cli/runTypeVerbs.ts). A run type's verb may also bring its part of `fpsweep demo`.

export interface VerbModule {
  summary: string;
  run(args: string[]): Promise<number>;
  /** Its steps in `fpsweep demo`, after the sample package's (each a verb a user would type). */
  demoSteps?(ctx: DemoContext): DemoStep[];
  /** A stand-in service its demo steps need (started before the steps are made, stopped after the last): the
   * environment it adds to every step (its URL, its key). Null: none here (a real service, or no stand-in mode). */
  demoService?(ctx: DemoContext): Promise<DemoService | null>;
}

export interface DemoService {
  env: Record<string, string>;
  stop(): void;
}

export interface DemoContext {
  /** The demo's package folder (--out); a run type keeps its demo files beside it, in `<out>-<its verb>`. */
  out: string;
  /** --fresh: make new sample inputs even where some are there. */
  fresh: boolean;
  /** The stand-in vLLM serves the demo (no real vLLM here). */
  standIn: boolean;
  env: NodeJS.ProcessEnv;
  /** The repository's root (bin/ holds the stand-ins' launchers). */
  repoRoot?: string;
  /** `n` consecutive ports on 127.0.0.1 that were free when the demo started, none handed out twice: where a step's
   * servers listen (not the fixed 8011+, where a user's own vLLM may be listening). Absent: the verbs' defaults. */
  takePorts?(n: number): number;
}

export interface DemoStep {
  title: string;
  argv: string[];
  /** Exit codes that let the demo go on (default [0]). */
  okCodes?: number[];
  /** Printed at the end of a demo that ran this step. */
  doneLine?: string;
  /** Printed right after the step, by its exit code, when the demo goes on: what its output means here. */
  after?(code: number): string | undefined;
}
