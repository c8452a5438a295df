// One reading of the host's CPU (runner/hostCpuProc.ts) from a fake /proc: the host's busy and total from
// /proc/stat's cpu line, the cores from its cpuN lines, our tree split into vLLM's servers and the rest, an exited
// child's CPU kept through its parent's cutime, a process outside our tree left out.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseProcPidStat, parseProcStat, procCpuReader, treeCpu } from '../../../src/core/runner/hostCpuProc';

/** A /proc/<pid>/stat line as Linux writes it (fields 1–22), utime/stime/cutime/cstime in ticks of 1/100 s. */
function pidStat(pid: number, comm: string, ppid: number, ticks: [number, number, number, number]): string {
  const [ut, st, cut, cst] = ticks;
  return `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${ut} ${st} ${cut} ${cst} 20 0 1 0 12345 1000000 100\n`;
}

const STAT = (user: number, idle: number) =>
  `cpu  ${user} 0 ${user / 2} ${idle} 10 0 5 0 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\ncpu1 1 0 1 1 0 0 0 0 0 0\ncpu2 1 0 1 1 0 0 0 0 0 0\nintr 1 2 3\n`;

describe('runner/hostCpuProc: one reading from /proc', () => {
  let proc: string;
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(proc, rel)), { recursive: true });
    writeFileSync(path.join(proc, rel), text);
  };
  beforeEach(() => {
    proc = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-fakeproc-'));
  });
  afterEach(() => rmSync(proc, { recursive: true, force: true }));

  it("reads /proc/stat's cpu line: busy = user+nice+system+irq+softirq+steal, total adds idle+iowait; cores from cpuN", () => {
    const s = parseProcStat(STAT(1000, 3000));
    assert.deepEqual(s, { cores: 3, busyS: (1000 + 500 + 5) / 100, totalS: (1000 + 500 + 5 + 3000 + 10) / 100 });
    assert.equal(parseProcStat('intr 1 2 3\n'), null);
  });

  it('reads a pid stat whose command name holds spaces and parentheses (fields counted from the last ")")', () => {
    assert.deepEqual(parseProcPidStat(7, pidStat(7, 'VLLM::Engine (x) 1', 3, [100, 50, 20, 10])), { pid: 7, ppid: 3, cpuS: 1.8 });
    assert.equal(parseProcPidStat(7, 'garbage'), null);
  });

  it("splits our tree: the servers' subtrees are vLLM's, the rest ours; a process outside the tree is nobody's", async () => {
    write('stat', STAT(1000, 3000));
    write('100/stat', pidStat(100, 'node', 1, [500, 100, 0, 0])); // the worker: 6 s
    write('101/stat', pidStat(101, 'ffmpeg', 100, [200, 0, 0, 0])); // its decode: 2 s
    write('200/stat', pidStat(200, 'vllm', 100, [300, 0, 0, 0])); // a server we launched: 3 s
    write('201/stat', pidStat(201, 'VLLM::EngineCore', 200, [400, 0, 0, 0])); // its engine core: 4 s
    write('300/stat', pidStat(300, 'someone else', 1, [9000, 0, 0, 0]));
    write('self/stat', 'not a pid');
    const reader = procCpuReader({ procDir: proc, rootPid: 100, serverPids: () => [200], now: () => 1234 });
    const r = await reader.read();
    assert.deepEqual(r, { atMs: 1234, cores: 3, hostBusyS: 15.05, hostTotalS: 45.15, oursS: 8, vllmS: 7 });

    // The decode ends and is waited for: its CPU moves into the worker's cutime; nothing of ours is lost.
    rmSync(path.join(proc, '101'), { recursive: true });
    write('100/stat', pidStat(100, 'node', 1, [510, 100, 200, 0]));
    const after = await reader.read();
    assert.equal(after!.oursS, 8.1);
    assert.equal(after!.vllmS, 7);

    // Given endpoints (no server of ours): vLLM's share is unknown, not 0; the servers' CPU is someone else's.
    const noServers = await procCpuReader({ procDir: proc, rootPid: 100 }).read();
    assert.equal(noServers!.vllmS, null);
    assert.equal(noServers!.oursS, 8.1 + 7);
  });

  it('no /proc/stat under a given proc dir: no reading; a root that is gone: the host only', async () => {
    assert.equal(await procCpuReader({ procDir: proc }).read(), null);
    write('stat', STAT(10, 10));
    const r = await procCpuReader({ procDir: proc, rootPid: 4242 }).read();
    assert.equal(r!.oursS, null);
    assert.equal(r!.vllmS, null);
    assert.equal(treeCpu([], 1, []), null);
  });
});
