// `fpsweep avtime train sft|grpo --dry-run` (SPEC-AVTIME-DATA §7): the seed's default topologies pass and expand
// to one launch per node rank; a broken topology or a missing dataset is refused with its numbers.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../../helpers/captureOutput';
import { topologyProblems } from '../../../../../src/core/protocols/avtime/data/train/topology';
import { TOPOLOGY_DEFAULTS } from '../../../../../src/core/protocols/avtime/data/train/defaults';

const dataset = () => {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'avtime-train-')), 'd.jsonl');
  fs.writeFileSync(f, '{}\n');
  return f;
};
const train = (kind: string, args: string[]) => runCli(['avtime', 'train', kind, '--dry-run', '--model', '/ckpt/actor', ...args]);

describe('avtime train --dry-run (SPEC-AVTIME-DATA §7)', () => {
  it("the seed's default SFT topology: 4 node ranks of 4×8, TP/PP/CP/EP 2/1/2/8", async () => {
    const d = dataset();
    const r = await train('sft', ['--dataset', d, '--json']);
    assert.equal(r.code, 0, r.err);
    const plan = JSON.parse(r.out);
    assert.deepEqual(plan.topology, TOPOLOGY_DEFAULTS.sft);
    assert.deepEqual(
      plan.launches.map((l: { node_rank: number; env: Record<string, string> }) => [l.node_rank, l.env.NODE_RANK, l.env.NNODES, l.env.NPROC_PER_NODE]),
      [0, 1, 2, 3].map((k) => [k, String(k), '4', '8']),
    );
    const argv: string[] = plan.launches[0].argv;
    const flag = (f: string) => argv[argv.indexOf(f) + 1];
    assert.deepEqual(argv.slice(0, 2), ['megatron', 'sft']);
    assert.equal(flag('--dataset'), d);
    assert.equal(flag('--expert_model_parallel_size'), '8');
    assert.equal(flag('--global_batch_size'), '64');
    assert.equal(flag('--lora_rank'), '128');
  });

  it("the seed's default GRPO topology: 2 node ranks, 8 generations, the avtime_btsc reward only; shell lines per rank", async () => {
    const r = await train('grpo', ['--dataset', dataset()]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /world 16 = 2×8, TP·PP·CP 8, DP 2, EP 2, global batch 128 \/ 8 generations/);
    const lines = r.out.split('\n').filter((l) => l.startsWith('NNODES='));
    assert.equal(lines.length, 2);
    assert.match(lines[1], /NODE_RANK=1 megatron rlhf .*--rlhf_type grpo --reward_funcs avtime_btsc --num_generations 8/);
  });

  it('environment knobs apply, a flag wins over them', async () => {
    const env = { TP: process.env.TP, EP: process.env.EP, NNODES: process.env.NNODES };
    process.env.TP = '4';
    process.env.EP = '2';
    process.env.NNODES = '1';
    try {
      const r = await train('sft', ['--dataset', dataset(), '--json', '--nnodes', '2']);
      assert.equal(r.code, 0, r.err);
      const t = JSON.parse(r.out).topology;
      assert.deepEqual([t.TP, t.EP, t.NNODES], [4, 2, 2]);
    } finally {
      for (const [k, v] of Object.entries(env))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  const refusals: [string, string, string[], RegExp][] = [
    ['world not divisible by TP·PP·CP', 'sft', ['--tp', '3'], /world size NNODES·NPROC_PER_NODE = 4·8 = 32 is not divisible by TP·PP·CP = 3·1·2 = 6/],
    ['EP not dividing DP', 'grpo', ['--ep', '4'], /EP = 4 does not divide the data-parallel size 16\/8 = 2/],
    ['global batch not divisible by generations', 'grpo', ['--num-generations', '6'], /GLOBAL_BATCH_SIZE = 128 is not divisible by NUM_GENERATIONS = 6/],
  ];
  for (const [name, kind, args, expected] of refusals) {
    it(`refused: ${name} (exit 2, the numbers named)`, async () => {
      const r = await train(kind, ['--dataset', dataset(), ...args]);
      assert.equal(r.code, 2);
      assert.match(r.err, expected);
      assert.equal(r.out, '');
    });
  }

  it('refused: a dataset that does not exist; no --dry-run', async () => {
    const r = await train('grpo', ['--dataset', '/nonexistent/bitsc_grpo.jsonl']);
    assert.equal(r.code, 2);
    assert.match(r.err, /--dataset \(or DATASET\) \/nonexistent\/bitsc_grpo\.jsonl: no such file; build it first/);
    const folder = await train('grpo', ['--dataset', path.dirname(dataset()), '--model', 'm']);
    assert.equal(folder.code, 2);
    assert.match(folder.err, /--dataset \(or DATASET\) .*: a folder, not a file/);
    const real = await runCli(['avtime', 'train', 'sft', '--dataset', dataset(), '--model', 'm']);
    assert.equal(real.code, 2);
    assert.match(real.err, /only --dry-run is built/);
  });

  it('topologyProblems names every broken rule at once', () => {
    assert.deepEqual(topologyProblems(TOPOLOGY_DEFAULTS.sft), []);
    assert.deepEqual(topologyProblems(TOPOLOGY_DEFAULTS.grpo), []);
    assert.equal(topologyProblems({ ...TOPOLOGY_DEFAULTS.grpo, TP: 3, NUM_GENERATIONS: 7 }).length, 2);
  });
});
