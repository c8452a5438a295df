// Every verb's --help states one rerun rule (issue 41): generated from the registry as docs/CLI.md is, so a new verb
// fails here until its help says what running it twice does, in one of the five forms, and reruns.int.test.ts runs
// it twice (the table in rerunCases.ts names each verb's form; its twice-run is checked against that form).
import { strict as assert } from 'node:assert';
import { cliDocEntries } from '../../scripts/genCliDoc';
import { captureOutput } from '../helpers/captureOutput';
import { main } from '../../src/cli/main';
import { RERUN_FORM_OF, RERUN_FORMS, rerunRuleOf } from './rerunCases';

describe('every verb states its rerun rule in its --help', function () {
  this.timeout(60_000);
  const entries = cliDocEntries();

  it('the table of rules names every registered verb, and no other', () => {
    assert.deepEqual(Object.keys(RERUN_FORM_OF).sort(), entries.map((e) => e.verb).sort());
  });

  for (const e of entries) {
    it(`fpsweep ${e.verb}: one Rerun: line, in its form`, async () => {
      const r = await captureOutput(() => main(e.helpArgs));
      assert.equal(r.code, 0, r.err);
      const help = r.out + r.err;
      const lines = help.split('\n').filter((l) => l.startsWith('Rerun: '));
      assert.equal(lines.length, 1, `fpsweep ${e.verb} --help has ${lines.length} Rerun: lines (one wanted):\n${help}`);
      const rule = rerunRuleOf(help)!;
      const form = RERUN_FORM_OF[e.verb];
      assert.ok(form, `fpsweep ${e.verb} is not in rerunCases.ts's table`);
      assert.match(rule, RERUN_FORMS[form], `fpsweep ${e.verb}'s rule is not of the form '${form}': ${rule}`);
    });
  }

  it('a help without a Rerun: line, or with two, fails', () => {
    assert.equal(rerunRuleOf('usage: x\n\nExit: 0.'), null);
    assert.equal(rerunRuleOf('usage: x\n\nRerun: resumes: a\nb c\n\nmore'), 'resumes: a b c');
    assert.doesNotMatch('says it is done', RERUN_FORMS.done);
  });
});
