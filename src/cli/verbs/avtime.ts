// fpsweep avtime <stage> …: the AVTime-Bench run type (SPEC-AVTIME §9). One entry per stage; the
// stages (inputs, infer, normalize, judge, score, run) are added to this table.
type Stage = { run(args: string[]): Promise<number>; summary: string };

const stages: Record<string, () => Stage> = {
  sample: () => require('./avtimeSample'),
};

export const summary = 'AVTime-Bench stages: ' + Object.keys(stages).join(', ');

function usage(): string {
  return ['usage: fpsweep avtime <stage> [options]', '', 'stages:', ...Object.entries(stages).map(([n, l]) => `  ${n.padEnd(10)} ${l().summary}`)].join('\n');
}

export async function run(args: string[]): Promise<number> {
  const [stage, ...rest] = args;
  if (!stage || stage === '--help' || stage === '-h') {
    process.stdout.write(usage() + '\n');
    return stage ? 0 : 2;
  }
  const load = stages[stage];
  if (!load) {
    process.stderr.write(`fpsweep avtime: unknown stage '${stage}'\n\n${usage()}\n`);
    return 2;
  }
  return load().run(rest);
}
