// The docs speak to users: no link out of the repository (`../shared`, which users do not have), no words of the team
// in the CHANGELOG (issue and attack numbers), and what README says of docs/CLI.md is true.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { verbs } from '../../src/cli/main';

const REPO = path.resolve(__dirname, '..', '..');
const read = (f: string) => fs.readFileSync(path.join(REPO, f), 'utf8');
const DOCS = [
  'README.md',
  'CHANGELOG.md',
  ...fs
    .readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the docs speak to users', () => {
  it('no page points outside the repository (../shared)', () => {
    for (const f of DOCS) assert.doesNotMatch(read(f), /\.\.\/(\.\.\/)?shared\b/, f);
  });

  it("the CHANGELOG names no issue or attack of the team's", () => {
    assert.doesNotMatch(read('CHANGELOG.md'), /\b(issue|attack)s? \d+/i);
  });

  it('README links docs/CONTRACTS.md and says CLI.md has every verb only while it has', () => {
    const readme = read('README.md');
    assert.match(readme, /docs\/CONTRACTS\.md/);
    const cli = read('docs/CLI.md');
    if (/every verb/.test(readme))
      for (const v of Object.keys(verbs)) assert.ok(cli.includes(`### \`fpsweep ${v}\``), `README says every verb; CLI.md lacks ${v}`);
    assert.match(readme, /GEMINI_API_KEY/);
    assert.match(readme, /bin\/fake-gemini/);
    assert.match(readme, /npx fpsweep/);
    assert.match(readme, /npm link/);
  });
});
