// Reruns are a feature (issue 41): every verb states one rerun rule, as the last line of its --help, in one of five
// forms. The verbs test/cli/reruns.int.test.ts runs twice (each as docs/CLI.md names it: the registry, walked by
// scripts/genCliDoc.ts), and the form of the rule each run must keep; test/cli/rerunRule.test.ts checks this table
// against the registry and the help texts, so a new verb fails until it states its rule and is run twice.
export type RerunForm = 'resumes' | 'done' | 'refuses' | 'reads' | 'writes';

/** The forms a `Rerun:` line takes (what follows `Rerun: `). */
export const RERUN_FORMS: Record<RerunForm, RegExp> = {
  resumes: /^resumes\b/,
  done: /^says .+ and exits 0\b/s,
  refuses: /^refuses \(exit 2\)/,
  reads: /^reads only\b/,
  writes: /^writes .+ again\b/s,
};

/** Each verb's form, by the words docs/CLI.md names it with. */
export const RERUN_FORM_OF: Readonly<Record<string, RerunForm>> = {
  sample: 'refuses',
  prepare: 'done',
  doctor: 'reads',
  'dry-run': 'reads',
  run: 'resumes',
  merge: 'resumes',
  status: 'reads',
  stop: 'done',
  report: 'writes',
  findings: 'reads',
  inspect: 'reads',
  return: 'writes',
  demo: 'resumes',
  avtime: 'refuses',
  'avtime sample': 'refuses',
  'avtime split': 'refuses',
  'avtime build-sft': 'refuses',
  'avtime build-grpo': 'refuses',
  'avtime train sft': 'reads',
  'avtime train grpo': 'reads',
  'avtime dvc': 'resumes',
  'avtime normalize --raw': 'refuses',
  'avtime caption': 'resumes',
  'avtime caption-sample': 'done',
  'avtime cut': 'resumes',
  'avtime cut-sample': 'done',
};

/** Verbs whose twice-run lives in another test file, and why. */
export const RERUN_TESTED_ELSEWHERE: Readonly<Record<string, string>> = {
  demo: 'test/cli/demoRerun.int.test.ts runs the demo twice in one folder and with --fresh (minutes: its own file)',
};

/** The rule's text: the `Rerun:` line of a help text with its continuation lines, without `Rerun: `; null if none. */
export function rerunRuleOf(help: string): string | null {
  const lines = help.split('\n');
  const i = lines.findIndex((l) => l.startsWith('Rerun: '));
  if (i < 0) return null;
  const rest: string[] = [];
  for (const l of lines.slice(i + 1)) {
    if (!l.trim()) break;
    rest.push(l.trim());
  }
  return [lines[i].slice('Rerun: '.length), ...rest].join(' ');
}
