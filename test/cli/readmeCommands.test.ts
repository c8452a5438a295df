// Every command README.md shows is checked, so none rots (issue 36 point 4). Running them is not the check: the two
// commands take minutes of both cores (the demo) and more than ten (npm test, which would run this test again), and
// the GPU host's verbs need a package, GPUs and hours. What rots is a verb renamed, a flag dropped, a script or file
// moved — so each command is checked in its dry form, in-process and within seconds:
//   fpsweep … / node dist/cli.js …  → `<verb> --help` exits 0 and lists every --flag the README passes it;
//   npm run S [-- flags] / npm test  → package.json has the script (and the flags are its CLI verb's);
//   npm ci                           → package-lock.json is there;   bash FILE → FILE parses (`bash -n`);
//   npx tsx FILE                     → FILE is there.
// Anything else in a README bash block fails this test until it says how that command is checked.
// The data path's sample commands are also run as written, by the integration tests that make and cut those samples
// anyway (no extra time): each passes README's exact text to test/helpers/readmeCommand.ts, and this test fails when
// such a text is no longer a command of README — so editing one of them in README fails until its test runs the new one.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../helpers/captureOutput';

const REPO = path.resolve(__dirname, '..', '..');
const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const SCRIPTS = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Shell words of one line (quotes kept together, unquoted `#…` a comment); `&&` and `;` split commands. */
function shellCommands(line: string): string[][] {
  const commands: string[][] = [[]];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const word = m[3];
    if (word?.startsWith('#')) break;
    if (word === '&&' || word === ';') commands.push([]);
    else commands[commands.length - 1].push(m[1] ?? m[2] ?? word);
  }
  return commands.filter((c) => c.length);
}

/** The commands of README's ```bash blocks (continued lines joined), each with its line for the message. */
function fencedCommands(md: string): { line: number; words: string[] }[] {
  const out: { line: number; words: string[] }[] = [];
  const lines = md.split('\n');
  let inBash = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^```/.test(lines[i])) {
      inBash = !inBash && lines[i].trim() === '```bash';
      continue;
    }
    if (!inBash) continue;
    let text = lines[i];
    const at = i + 1;
    while (text.endsWith('\\') && i + 1 < lines.length) text = text.slice(0, -1) + ' ' + lines[++i];
    for (const words of shellCommands(text)) out.push({ line: at, words });
  }
  return out;
}

/** Inline `fpsweep …`, `node dist/cli.js …` and `npm run …` spans; `a / b / c` verbs expanded, each with the flags
 * after them. */
function inlineCommands(md: string): { line: number; words: string[] }[] {
  const out: { line: number; words: string[] }[] = [];
  md.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/`((?:fpsweep|node dist\/cli\.js|npm run) [^`]+)`/g)) {
      const words = m[1].split(/\s+/);
      const firstFlag = words.findIndex((w, k) => k > 0 && w.startsWith('-'));
      const head = firstFlag < 0 ? words : words.slice(0, firstFlag);
      const tail = firstFlag < 0 ? [] : words.slice(firstFlag);
      // "fpsweep prepare / doctor / run --package DIR": the verbs before the first flag, one command each.
      const slash = head.indexOf('/');
      if (slash < 0) out.push({ line: i + 1, words: [...head, ...tail] });
      else {
        const prefix = head.slice(0, slash - 1);
        for (const verb of head.slice(slash - 1).filter((w) => w !== '/')) out.push({ line: i + 1, words: [...prefix, verb, ...tail] });
      }
    }
  });
  return out;
}

/** The verb path of a CLI call (`avtime cut`, `avtime train sft`, `run`) and its flags. */
function verbOf(args: string[]): { verb: string[]; flags: string[] } {
  const n = args[0] === 'avtime' ? (args[1] === 'train' ? 3 : 2) : 1;
  return {
    verb: args.slice(0, n),
    flags: args
      .slice(n)
      .filter((a) => /^--[a-z]/.test(a))
      .map((a) => a.split('=')[0]),
  };
}

async function checkCli(args: string[]): Promise<void> {
  const { verb, flags } = verbOf(args);
  const r = await runCli([...verb, '--help']);
  assert.equal(r.code, 0, `fpsweep ${verb.join(' ')} --help exited ${r.code}: ${r.err}`);
  const help = r.out + r.err;
  for (const f of flags) assert.ok(new RegExp(`${f}\\b`).test(help), `fpsweep ${verb.join(' ')} has no ${f} in its --help`);
}

async function checkCommand(words: string[]): Promise<string> {
  // Environment assignments before the command (VLLM_BIN=…) are the command's, not a command.
  const [cmd, ...rest] = words.slice(words.findIndex((y) => !/^[A-Z_][A-Z0-9_]*=/.test(y)));
  if (cmd === 'export')
    return (
      assert.ok(
        rest.every((w) => /^[A-Z_][A-Z0-9_]*=/.test(w)),
        `export ${rest.join(' ')}`,
      ),
      'env'
    );
  if (cmd === 'fpsweep') return checkCli(rest).then(() => 'help');
  if (cmd === 'node' && rest[0] === 'dist/cli.js') return checkCli(rest.slice(1)).then(() => 'help');
  if (cmd === 'npm' && rest[0] === 'ci') return (assert.ok(fs.existsSync(path.join(REPO, 'package-lock.json'))), 'lock');
  if (cmd === 'npm' && (rest[0] === 'test' || rest[0] === 'run')) {
    const name = rest[0] === 'test' ? 'test' : rest[1];
    assert.ok(SCRIPTS[name], `package.json has no script "${name}"`);
    const extra = rest.indexOf('--');
    const verb = /node dist\/cli\.js (\S+)\s*$/.exec(SCRIPTS[name])?.[1];
    if (extra >= 0) {
      assert.ok(verb, `npm run ${name} -- … passes flags, but the script ends in no fpsweep verb: ${SCRIPTS[name]}`);
      await checkCli([verb, ...rest.slice(extra + 1)]);
    }
    return 'script';
  }
  if (cmd === 'bash') {
    execFileSync('bash', ['-n', path.join(REPO, rest[0])]);
    return 'bash -n';
  }
  if (cmd === 'npx' && rest[0] === 'tsx') return (assert.ok(fs.existsSync(path.join(REPO, rest[1])), `${rest[1]} is missing`), 'file');
  throw new Error(`README runs \`${words.join(' ')}\`: say in test/cli/readmeCommands.test.ts how it is checked`);
}

/** The README commands an integration test runs as written: each literal passed to readmeCommand('…') in
 * the *.int.test.ts files under test/, with the file that runs it. */
function runByIntTests(dir = path.join(REPO, 'test')): { text: string; file: string }[] {
  const out: { text: string; file: string }[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...runByIntTests(p));
    else if (e.name.endsWith('.int.test.ts'))
      for (const m of fs.readFileSync(p, 'utf8').matchAll(/readmeCommand\(\s*'([^']+)'/g)) out.push({ text: m[1], file: path.relative(REPO, p) });
  }
  return out;
}

describe('README: every command it shows is checked (issue 36 point 4)', () => {
  it("is a newcomer's page: at most 200 lines", () => {
    assert.ok(README.split('\n').length <= 200, `${README.split('\n').length} lines`);
  });

  const all = [...fencedCommands(README), ...inlineCommands(README)];
  it("finds the two commands and the GPU host's verbs", () => {
    const said = all.map((c) => c.words.join(' '));
    assert.ok(said.includes('bash scripts/setup.sh') && said.includes('npm run demo') && said.includes('npm test'), said.join('\n'));
    assert.ok(all.length >= 20, `only ${all.length} commands found`);
  });

  const run = runByIntTests();
  it('each command an integration test runs as README writes it is a command of README, word for word', () => {
    const said = new Set(all.map((c) => c.words.join(' ')));
    assert.ok(run.length >= 4, `only ${run.length} README commands run: ${JSON.stringify(run)}`);
    for (const r of run) assert.ok(said.has(r.text), `${r.file} runs \`${r.text}\`, which README.md no longer shows: run README's command there`);
  });

  for (const c of all) {
    const by = run.find((r) => r.text === c.words.join(' '));
    it(`README.md:${c.line}: ${c.words.join(' ')}${by ? ` (run as written by ${by.file})` : ''}`, async () => {
      await checkCommand(c.words);
    });
  }

  it('a flag a verb does not have fails the check', async () => {
    await assert.rejects(checkCli(['prepare', '--package', 'fp', '--no-such-flag']), /has no --no-such-flag/);
    await assert.rejects(checkCommand(['rm', '-rf', '/tmp/x']), /say in test\/cli\/readmeCommands\.test\.ts/);
  });
});
