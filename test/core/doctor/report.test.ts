// `fpsweep doctor` asks every run type through its hook (RunProtocol.doctor): the lines in the registry's order,
// one version asker shared so an executable two run types name is asked once, and fp's hook names no other run
// type's pins.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { doctorReport } from '../../../src/core/doctor/report';
import type { DoctorLine } from '../../../src/core/doctor/schema';
import type { VllmVersionAsker } from '../../../src/core/doctor/tools';
import type { DoctorHookOptions, DoctorSubject } from '../../../src/core/doctor/report';
import { PROTOCOLS } from '../../../src/core/protocols/registry';

const line = (id: string, status: DoctorLine['status'] = 'ok'): DoctorLine => ({ id, title: id, status, detail: '', action: null });

describe('doctor: every run type through its hook', () => {
  it("the hooks' lines in the registry's order; a run type without one adds none; one fail makes the report not ok", async () => {
    const seen: (string | null)[] = [];
    const a: DoctorSubject = {
      doctor: async (root) => {
        seen.push(root);
        return [line('a1'), line('a2', 'warn')];
      },
    };
    const none: DoctorSubject = {};
    const b: DoctorSubject = { doctor: async () => [line('b1', 'fail')] };
    const r = await doctorReport([a, none, b], '/pkg', { env: {} });
    assert.deepEqual(
      r.lines.map((l) => l.id),
      ['a1', 'a2', 'b1'],
    );
    assert.deepEqual(seen, ['/pkg']);
    assert.equal(r.ok, false);
    assert.equal(r.packageDir, '/pkg');
    assert.equal((await doctorReport([a], null, { env: {} })).ok, true);
  });

  it('hands every hook the same version asker (an executable two run types name is asked once)', async () => {
    const askers = new Set<VllmVersionAsker>();
    const hook = async (_root: string | null, o: DoctorHookOptions) => {
      askers.add(o.vllmVersion);
      return [];
    };
    await doctorReport([{ doctor: hook }, { doctor: hook }], null, { env: {} });
    assert.equal(askers.size, 1);
  });

  it('each registered run type answers doctor through its own hook', () => {
    for (const p of PROTOCOLS.all) assert.equal(typeof p.doctor, 'function', `${p.id} has no doctor hook`);
  });

  it("fp's doctor names no other run type's pins or checks", () => {
    const dir = path.resolve(__dirname, '../../../src/core/protocols/fp/doctor');
    for (const f of fs.readdirSync(dir)) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      assert.doesNotMatch(text, /protocols\/avtime|\.\.\/avtime|AVTIME_|avtimeVllmChecks/, f);
    }
  });
});
