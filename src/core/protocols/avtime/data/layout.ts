// The paths the AVTime data verbs write, from the flags that name their outputs (issue 42): `split` publishes one
// folder, `build-sft` and `build-grpo` two files, `normalize` three, each staged beside its place and renamed in
// (outputs.ts). The
// generated link test (test/core/containment/hostile/dataLayoutLinks.int.test.ts) plants a link at every member.
import * as path from 'node:path';

/** Where an output is staged before its rename: beside it, hidden, this process's own. */
export const stagingOf = (p: string): string => path.join(path.dirname(p), `.${path.basename(p)}.staging-${process.pid}`);

/** `split`: the folder --output-root, staged whole beside it; the folder the user named it in is its root. */
export class SplitOutputs {
  constructor(readonly outputRoot: string) {}
  get root(): string {
    return path.dirname(this.outputRoot);
  }
  get staging(): string {
    return stagingOf(this.outputRoot);
  }
}

/**
 * Single files a verb publishes together, each at the path a flag names and staged beside it (stagingOf) until all
 * are written: `build-sft` and `build-grpo` (RowsOutputs), `normalize` in the seed's form (NormalizeOutputs). Its
 * members are the paths themselves (`file.<name>`, `staging.<name>`), no methods: the generated link test plants each.
 */
export class FileOutputs<N extends string> {
  /** Where each output is staged before its rename. */
  readonly staging: Readonly<Record<N, string>>;
  constructor(
    /** Each output's path, by the name of the flag that names it, in the order they are published. */
    readonly file: Readonly<Record<N, string>>,
  ) {
    this.staging = Object.fromEntries(Object.entries<string>(file).map(([name, p]) => [name, stagingOf(p)])) as Record<N, string>;
  }
}

/** `build-sft`, `build-grpo`: the rows (--output-jsonl) and their report (--report-json). */
export type RowsOutputs = FileOutputs<'outputJsonl' | 'reportJson'>;
export const rowsOutputs = (outputJsonl: string, reportJson: string): RowsOutputs => new FileOutputs({ outputJsonl, reportJson });

/** `normalize` in the seed's form: the predictions (--output), their failures (--failures) and the report (--report). */
export type NormalizeOutputs = FileOutputs<'output' | 'failures' | 'report'>;
export const normalizeOutputs = (output: string, failures: string, report: string): NormalizeOutputs => new FileOutputs({ output, failures, report });
