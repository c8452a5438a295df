// The redactor's chokepoints (issue 33, point 4): whoever writes, a registered secret never reaches the terminal
// (the CLI's and worker's stdout/stderr), a log or record line (AppendFile), a status file or the extension's
// output channel.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { AppendFile } from '../../../src/core/runner/appendFile';
import { writeStatusAtomic } from '../../../src/core/runner/statusFile';
import { clearSecrets, redactStreams, registerEnvSecrets, registerSecret } from '../../../src/core/security/secrets';
import { redactingOutputChannel } from '../../../src/extension/redaction';
import { runCli } from '../../helpers/captureOutput';

const SECRET = 'sk-chokepointSecret0123456789';
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'chokepoints-'));

describe('the redactor at every sink', () => {
  beforeEach(() => registerSecret(SECRET, 'api-key'));
  afterEach(() => clearSecrets());

  it('the terminal: a string or a Buffer written to a redacted stream is masked; the undo puts the stream back', () => {
    const got: unknown[] = [];
    const stream = { write: (c: unknown) => (got.push(c), true) } as unknown as NodeJS.WriteStream;
    const original = stream.write;
    const undo = redactStreams([stream]);
    stream.write(`GET /v1/models?key=${SECRET}\n`);
    stream.write(Buffer.from(`Bearer ${SECRET}`));
    undo();
    assert.deepEqual(got, ['GET /v1/models?key=<api-key>\n', 'Bearer <api-key>']);
    assert.equal(stream.write, original);
  });

  it('the CLI: a key from the environment is masked in what a verb prints (here an error echoing its argument)', async () => {
    clearSecrets();
    const before = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = SECRET;
    try {
      const r = await runCli(['avtime', 'caption', `/nonexistent/${SECRET}`, '--base-url', 'http://127.0.0.1:9']);
      assert.equal(r.code, 2);
      assert.match(r.err, /\/nonexistent\/<openai-key>: no such folder \(\/nonexistent\/<openai-key>\)/);
      assert.ok(!r.err.includes(SECRET));
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = before;
    }
  });

  it('logs and records: an AppendFile line is masked on disk', async () => {
    const root = tmp();
    const file = path.join(root, 'runner.log');
    const f = new AppendFile(root, file);
    await f.append(`error: 401 for Bearer ${SECRET}\n`);
    await f.close();
    assert.equal(fs.readFileSync(file, 'utf8'), 'error: 401 for Bearer <api-key>\n');
  });

  it('a status file is masked on disk', async () => {
    const root = tmp();
    const file = path.join(root, 'status.json');
    await writeStatusAtomic(root, file, z.object({ summary: z.string() }), { summary: `server said: bad key ${SECRET}` });
    assert.ok(!fs.readFileSync(file, 'utf8').includes(SECRET));
    assert.match(fs.readFileSync(file, 'utf8'), /bad key <api-key>/);
  });

  it("the extension's output channel masks append, appendLine and replace", () => {
    const lines: string[] = [];
    const channel = { name: 'fpsweep', append: (t: string) => lines.push(t), appendLine: (t: string) => lines.push(t), replace: (t: string) => lines.push(t) };
    const out = redactingOutputChannel(channel as never);
    out.append(SECRET);
    out.appendLine(`x ${SECRET}`);
    out.replace(encodeURIComponent(SECRET));
    assert.deepEqual(lines, ['<api-key>', 'x <api-key>', '<api-key>']);
    assert.equal(out.name, 'fpsweep');
  });

  it('registerEnvSecrets knows the hub token, the servers’ and the judges’ keys', () => {
    clearSecrets();
    const f = new Map<string, string>([
      ['HF_TOKEN', 'hf_envToken0123456789'],
      ['FPSWEEP_API_KEY', 'fpsweepKey0123456789'],
      ['OPENAI_API_KEY', 'openaiKey0123456789'],
      ['GEMINI_API_KEY', 'geminiKey0123456789'],
      ['GOOGLE_API_KEY', 'googleKey0123456789'],
    ]);
    registerEnvSecrets(Object.fromEntries(f));
    const out = redactStreamsText([...f.values()].join(' '));
    assert.equal(out, '<hf-token> <api-key> <openai-key> <gemini-key> <gemini-key>');
  });
});

function redactStreamsText(text: string): string {
  let got = '';
  const stream = { write: (c: string) => ((got += c), true) } as unknown as NodeJS.WriteStream;
  const undo = redactStreams([stream]);
  stream.write(text);
  undo();
  return got;
}
