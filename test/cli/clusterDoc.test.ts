// Issue 43: the docs' cluster commands are the shipped, tested files. docs/CLUSTER.md quotes each job script, the
// Kubernetes Indexed Jobs and the slurm.conf the real-Slurm test runs word for word; each script is valid bash with
// `set -euo pipefail` (a refused task fails in Slurm's accounting), keeps its state on shared storage (never $TMPDIR)
// and runs `--shard auto`; each Indexed Job gives its pods FPSWEEP_SHARD_COUNT = completions. No doc line uses the
// old `sbatch --wrap` one-liner.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import yaml from 'js-yaml';

const REPO = path.resolve(__dirname, '..', '..');
const SCRIPTS = ['fp-sweep.sbatch', 'caption.sbatch', 'cut.sbatch', 'avtime-run.sbatch'].map((f) => `examples/slurm/${f}`);
const JOBS = 'examples/kubernetes/fp-sweep-indexed-job.yaml';
/** The one-node slurm.conf the real-Slurm test runs (test/helpers/slurmCluster.ts fills its placeholders). */
const SLURM_CONF = 'examples/slurm/one-node-test.conf';
const read = (f: string) => fs.readFileSync(path.join(REPO, f), 'utf8');

describe('docs/CLUSTER.md and the shipped job scripts (issue 43)', () => {
  it('quotes every job script, the Indexed Jobs and the tested slurm.conf word for word', () => {
    const doc = read('docs/CLUSTER.md');
    for (const f of [...SCRIPTS, JOBS, SLURM_CONF]) {
      const lang = f.endsWith('.yaml') ? 'yaml' : f.endsWith('.conf') ? 'ini' : 'bash';
      const m = new RegExp('`' + f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '`:\\n\\n```' + lang + '\\n([\\s\\S]*?)```\\n').exec(doc);
      assert.ok(m, `docs/CLUSTER.md quotes ${f}`);
      assert.equal(m[1], read(f), `docs/CLUSTER.md's quote of ${f} is the file (copy it again)`);
    }
  });

  it('each script: bash -n clean, set -euo pipefail before any work, shared storage, --shard auto for arrays', () => {
    for (const f of SCRIPTS) {
      const text = read(f);
      execFileSync('bash', ['-n', path.join(REPO, f)]);
      const lines = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
      assert.equal(lines[0], 'set -euo pipefail', `${f}: set -euo pipefail is its first command`);
      assert.doesNotMatch(text.replace(/^#.*$/gm, ''), /TMPDIR/, `${f}: no state in $TMPDIR`);
      assert.ok(fs.statSync(path.join(REPO, f)).mode & 0o100, `${f} is executable`);
      if (/#SBATCH --array=/.test(text)) {
        assert.match(text, /--shard "\$\{FPSWEEP_SHARD:-auto\}"/, `${f}: --shard auto (FPSWEEP_SHARD overrides)`);
        assert.match(text, /#SBATCH --requeue/, `${f}: requeueable`);
        assert.match(text, /#SBATCH --open-mode=append/, `${f}: a requeued task appends to its output`);
      }
    }
  });

  it('each Indexed Job: completions = parallelism = FPSWEEP_SHARD_COUNT, --shard auto, state on the shared volume', () => {
    const docs = yaml.loadAll(read(JOBS)) as any[];
    assert.equal(docs.length, 3);
    for (const job of docs) {
      assert.equal(job.apiVersion, 'batch/v1');
      assert.equal(job.kind, 'Job');
      assert.equal(job.spec.completionMode, 'Indexed');
      assert.equal(job.spec.parallelism, job.spec.completions);
      const [c] = job.spec.template.spec.containers;
      const count = c.env.find((e: { name: string }) => e.name === 'FPSWEEP_SHARD_COUNT');
      assert.equal(Number(count?.value), job.spec.completions, `${job.metadata.name}: FPSWEEP_SHARD_COUNT = completions`);
      assert.match(c.args.join('\n'), /--shard auto/);
      assert.ok(['Never', 'OnFailure'].includes(job.spec.template.spec.restartPolicy));
      const mount = c.volumeMounts.find((m: { name: string }) => m.name === 'shared');
      assert.equal(mount?.mountPath, '/shared');
      assert.ok(job.spec.template.spec.volumes.find((v: { name: string; persistentVolumeClaim?: unknown }) => v.name === 'shared' && v.persistentVolumeClaim));
      const where = [...c.args, ...c.env.map((e: { value: string }) => e.value)].join('\n');
      assert.match(where, /\/shared\//, `${job.metadata.name}: its state under the shared volume`);
    }
  });

  it('no doc uses the old sbatch --wrap one-liner; every sbatch line names a shipped script', () => {
    for (const f of [
      'README.md',
      ...fs
        .readdirSync(path.join(REPO, 'docs'))
        .filter((d) => d.endsWith('.md'))
        .map((d) => `docs/${d}`),
    ]) {
      // A command continued with a backslash is one line.
      for (const [i, line] of read(f).replace(/\\\n/g, ' ').split('\n').entries()) {
        // A command line: sbatch first, after environment assignments (prose naming sbatch is not one).
        if (!/^\s*([A-Z_]+=\S+\s+)*sbatch\s/.test(line)) continue;
        assert.doesNotMatch(line, /--wrap/, `${f}:${i + 1}`);
        assert.match(line, /examples\/slurm\/[\w-]+\.sbatch/, `${f}:${i + 1}: an sbatch line names a shipped script`);
      }
    }
  });
});
