// The paths the AVTime data verbs write, from the flags that name their outputs (issue 42): `split` publishes one
// folder, `build-sft` and `build-grpo` two files, each staged beside its place and renamed in (outputs.ts). The
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

/** `build-sft`, `build-grpo`: the rows (--output-jsonl) and their report (--report-json), each staged beside it. */
export class RowsOutputs {
  constructor(
    readonly outputJsonl: string,
    readonly reportJson: string,
  ) {}
  get rowsStaging(): string {
    return stagingOf(this.outputJsonl);
  }
  get reportStaging(): string {
    return stagingOf(this.reportJson);
  }
}

/** `normalize` in the seed's form: the predictions (--output), their failures (--failures) and the report (--report),
 * each staged beside it. */
export class NormalizeOutputs {
  constructor(
    readonly output: string,
    readonly failures: string,
    readonly report: string,
  ) {}
  get outputStaging(): string {
    return stagingOf(this.output);
  }
  get failuresStaging(): string {
    return stagingOf(this.failures);
  }
  get reportStaging(): string {
    return stagingOf(this.report);
  }
}
