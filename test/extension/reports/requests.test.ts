// The report webviews' requests at the host's boundary (src/extension/reports/requests.ts): each command only in its
// exact shape, a refusal that says why (answered when the message has a number), and a protocol's request going
// to that protocol's handler only.
import { strict as assert } from 'node:assert';
import type { z } from 'zod';
import { answerProtocolRequest, checkWebviewRequest, webviewRequestSchema, type RequestHandlers } from '../../../src/extension/reports/requests';
import type { WebviewRequest } from '../../../src/extension/reports/messages';

// Compile time: every request the webview side may send is one the schema takes (tsc fails here otherwise;
// the other way round is the schema's `satisfies` in requests.ts).
const _everyRequestChecked: [WebviewRequest] extends [z.infer<typeof webviewRequestSchema>] ? true : false = true;

describe('report webview requests: the host boundary', () => {
  it('takes each command in its exact shape', () => {
    const good: WebviewRequest[] = [
      { req: 1, command: 'ready' },
      { req: 2, command: 'getReport' },
      { req: 3, command: 'openFile', args: { file: 'logs/runner.log', line: 12 } },
      { req: 4, command: 'openFile', args: { file: 'results/conditions_results.csv' } },
      { req: 5, command: 'getItem', args: { benchmark: 'MVBench', itemId: 'mv-1' } },
      { req: 6, command: 'avtimeQueries', args: {} },
      { req: 7, command: 'avtimeQueries', args: { direction: 'e2t', axis: 'V', video: 'vid_0', text: 'q_' } },
      { req: 8, command: 'avtimeQuery', args: { queryId: 'q_t2e_A' } },
      { req: 9, command: 'findingsFlips', args: { benchmark: 'MVBench', contrast: 'pixels' } },
    ];
    for (const m of good) assert.deepEqual(checkWebviewRequest(m), { ok: true, request: m });
  });

  it('refuses anything else, saying why, with the number to answer when there is one', () => {
    const bad: [unknown, number | null, RegExp][] = [
      [{ req: 1, command: 'deleteEverything' }, 1, /^deleteEverything: not a request a report panel answers$/],
      [{ req: 2, command: 'getItem', args: { benchmark: 'MVBench', itemId: 7 } }, 2, /^getItem: itemId: Expected string, received number/],
      [{ req: 3, command: 'getItem', args: { benchmark: 'MVBench' } }, 3, /^getItem: itemId: Required/],
      [{ req: 4, command: 'openFile', args: { file: 'a', line: 0 } }, 4, /^openFile: line: Number must be greater than 0/],
      [{ req: 5, command: 'openFile', args: { file: 'a', line: 1.5 } }, 5, /^openFile: line: Expected integer/],
      [{ req: 6, command: 'avtimeQueries', args: { direction: 'sideways' } }, 6, /^avtimeQueries: direction: Invalid enum value/],
      [{ req: 7, command: 'avtimeQuery', args: { queryId: 'q', extra: 1 } }, 7, /^avtimeQuery: Unrecognized key\(s\) in object: 'extra'/],
      [{ req: 8, command: 'ready', args: { x: 1 } }, 8, /^ready: Unrecognized key\(s\) in object: 'args'/],
      [{ command: 'ready' }, null, /^ready: req: Required/],
      [{ req: -1, command: 'ready' }, null, /^ready: req: /],
      ['ready', null, /^request: /],
      [null, null, /^request: /],
    ];
    for (const [raw, req, why] of bad) {
      const r = checkWebviewRequest(raw);
      assert.ok(!r.ok, JSON.stringify(raw));
      assert.equal(r.req, req, JSON.stringify(raw));
      assert.match(r.error, why, JSON.stringify(raw));
    }
  });

  it("a protocol's request goes to its handler with the checked arguments and the panel's run; another protocol's is refused", async () => {
    const asked: unknown[] = [];
    const avtime: RequestHandlers<'avtime'> = {
      avtimeQueries: async (filter, run) => (asked.push(['avtimeQueries', filter, run]), { total: 0, limit: 200, shown: [] }),
      avtimeQuery: async (a, run) => {
        asked.push(['avtimeQuery', a, run]);
        throw new Error(`no query ${a.queryId}`);
      },
    };
    assert.deepEqual(await answerProtocolRequest(avtime, { command: 'avtimeQueries', args: { axis: 'A' } }, '/runs/r1', 'AVTime-Bench'), {
      total: 0,
      limit: 200,
      shown: [],
    });
    await assert.rejects(answerProtocolRequest(avtime, { command: 'avtimeQuery', args: { queryId: 'q9' } }, '/runs/r1', 'AVTime-Bench'), /no query q9/);
    await assert.rejects(
      answerProtocolRequest(avtime, { command: 'getItem', args: { benchmark: 'MVBench', itemId: 'mv-1' } }, '/runs/r1', 'AVTime-Bench'),
      /^Error: getItem: not a request of the AVTime-Bench report$/,
    );
    assert.deepEqual(asked, [
      ['avtimeQueries', { axis: 'A' }, '/runs/r1'],
      ['avtimeQuery', { queryId: 'q9' }, '/runs/r1'],
    ]);
  });
});
