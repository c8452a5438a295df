// The demo's doctor step on a machine without a GPU, served by the stand-in: doctor's own report stays whole (its
// FAIL lines and "fix the failures before the run" tell the truth about this host), and the demo then says plainly
// that these are what a real run on a GPU host would need, that the demo itself runs on the stand-in, and goes on.
// The real doctor runs on the shared sample package (read only) with the stand-in as VLLM_BIN, as the demo runs it.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { doctorNote, fpDemoSteps, runDemoSteps } from '../../src/cli/verbs/demo';
import { getSamplePackage, SAMPLE_TIMEOUT_MS } from '../core/protocols/fp/sample/fixture';
import { cliCommand } from '../helpers/scancel';
import { writeShellScript } from '../helpers/fakeGpuTools';

const REPO = path.resolve(__dirname, '..', '..');
const STANDIN = path.join(REPO, 'bin', 'fake-vllm');

describe('fpsweep demo: the doctor step on the stand-in', function () {
  this.timeout(120_000);
  let pkg: string;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    pkg = (await getSamplePackage()).root;
  });

  it("doctor's whole report, then the demo's plain words about it, and the demo goes on to the next step", () => {
    const steps = fpDemoSteps({ out: pkg, make: false, force: false, fpPort: 20_000, standIn: true });
    const doctor = steps.findIndex((s) => s.argv[0] === 'doctor');
    assert.ok(doctor >= 0);
    const [node, ...pre] = cliCommand();
    // A machine without a usable GPU, as the demo is for: an nvidia-smi that finds no driver comes first on PATH.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-doctor-'));
    writeShellScript(bin, 'nvidia-smi', 'echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver."; exit 9');
    const env: NodeJS.ProcessEnv = { ...process.env, VLLM_BIN: STANDIN, NGPU: '2', PATH: `${bin}:${process.env.PATH}` };
    let transcript = '';
    const ran: string[] = [];
    const code = runDemoSteps(
      steps.slice(doctor, doctor + 2),
      pkg,
      (argv) => {
        ran.push(argv[0]);
        if (argv[0] !== 'doctor') return 0; // the dry run is not this test's
        const r = spawnSync(node, [...pre, ...argv], { env, encoding: 'utf8' });
        transcript += r.stdout + r.stderr;
        return r.status ?? 1;
      },
      (t) => (transcript += t),
    );
    fs.rmSync(bin, { recursive: true, force: true });
    assert.equal(code, 0, transcript);
    assert.deepEqual(ran, ['doctor', 'dry-run'], 'the demo went on after doctor');
    assert.match(transcript, /== demo 1\/2: doctor: what a real run on this machine would need \(the demo itself runs on the stand-in vLLM\)/);
    // doctor's own words, untouched: this host cannot run the sweep for real.
    assert.match(transcript, /FAIL {2}GPUs: /);
    assert.match(transcript, /\d+ ok, \d+ warn, [1-9]\d* fail — fix the failures before the run\n/);
    assert.match(transcript, /warn {2}vLLM for the AVTime target \(pin ≥ 0\.18\.0\): vLLM 0\.11\.0/);
    // Then the demo's words, after doctor's last line and before the next step.
    const note = transcript.indexOf('demo: the FAIL and warn lines above are what a real run on this machine would need');
    assert.ok(note > transcript.indexOf('fix the failures before the run'), transcript);
    assert.ok(note < transcript.indexOf('== demo 2/2: dry run'), transcript);
    assert.match(transcript, /not a fault of the demo.*serves with the stand-in vLLM \(bin\/fake-vllm: no GPU, no weights\), so it goes on/);
    assert.match(transcript, /pin warnings for AVTime and captioning read `fake-vllm --version`, the Frames × Pixels release \(0\.11\.0\)/);
  });

  it('a real vLLM: doctor is the plain step, and its failures are called failures to fix before a real run', () => {
    const steps = fpDemoSteps({ out: pkg, make: true, force: true, fpPort: 20_000, standIn: false });
    const doctor = steps.find((s) => s.argv[0] === 'doctor')!;
    assert.equal(doctor.title, 'doctor');
    assert.deepEqual(steps[0].argv.slice(-2), ['--planted', '--force']);
    assert.match(doctorNote(false, 1)!, /fix them before a real run/);
    assert.doesNotMatch(doctorNote(false, 1)!, /stand-in/);
    assert.equal(doctorNote(false, 0), undefined);
    assert.match(doctorNote(true, 0)!, /doctor passed; the demo serves with the stand-in/);
  });

  it('a step outside its exit codes stops the demo with its code and where the package is; no note', () => {
    const out: string[] = [];
    const steps = [
      { title: 'a', argv: ['a'], after: () => 'never' },
      { title: 'b', argv: ['b'] },
    ];
    assert.equal(
      runDemoSteps(
        steps,
        '/pkg',
        () => 2,
        (t) => out.push(t),
      ),
      2,
    );
    assert.match(out.join(''), /fpsweep demo: step 'a' exited 2; the package is at \/pkg\n$/);
    assert.doesNotMatch(out.join(''), /never|== demo 2/);
  });
});
