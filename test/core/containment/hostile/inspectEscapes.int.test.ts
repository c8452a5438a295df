// Issue 42: `inspect`'s text output passed escape sequences from items/*.jsonl to the terminal (an OSC 52 clipboard
// write, a screen clear). A question and an option planted with them (7-bit and 8-bit forms, a bidi override): the
// item's text, the list and --json show each control character escaped, and nothing that drives a terminal is left.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { runCli } from '../../../helpers/captureOutput';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../../protocols/fp/sample/fixture';
import { PackageLayout } from '../../../../src/core/protocols/fp/package/layout';

const OSC52 = '\u001b]52;c;cm0gLXJmIH4K\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const CSI8 = '\u009b2J';
const BIDI = '\u202e';
/** Nothing that a terminal acts on: C0 but \n and \t, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const DRIVES_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('hostile items: escape sequences in items/*.jsonl shown by inspect (issue 42)', function () {
  this.timeout(120_000);
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
  });

  it('the item, the list and --json show the control characters escaped', async () => {
    const pkg = await copySamplePackage();
    const file = new PackageLayout(pkg.root).samplesFile('MVBench');
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    const first = JSON.parse(lines[0]) as { item_id: string; question: string; options: string[] };
    first.question = `Which one?${OSC52}${CLEAR}${CSI8}${BIDI}`;
    first.options[0] = `A city${CLEAR}`;
    lines[0] = JSON.stringify(first);
    fs.writeFileSync(file, lines.join('\n') + '\n');

    const item = await runCli(['inspect', '--package', pkg.root, '--benchmark', 'MVBench', '--item', first.item_id, '--no-rebuild']);
    assert.equal(item.code, 0, item.err);
    assert.doesNotMatch(item.out, DRIVES_TERMINAL);
    assert.ok(item.out.includes('Which one?\\u{001b}]52;c;cm0gLXJmIH4K\\u{0007}\\u{001b}[2J\\u{001b}[H\\u{009b}2J\\u{202e}'), item.out);

    const list = await runCli(['inspect', '--package', pkg.root, '--benchmark', 'MVBench', '--condition', 'v_32']);
    assert.equal(list.code, 0, list.err);
    assert.doesNotMatch(list.out, DRIVES_TERMINAL);
    assert.ok(list.out.includes('\\u{001b}]52'), list.out);

    const json = await runCli(['inspect', '--package', pkg.root, '--benchmark', 'MVBench', '--item', first.item_id, '--no-rebuild', '--json']);
    assert.equal(json.code, 0, json.err);
    assert.doesNotMatch(json.out, DRIVES_TERMINAL);
    assert.ok((JSON.parse(json.out) as { promptText: string }).promptText.includes(`Which one?${OSC52}${CLEAR}${CSI8}${BIDI}`), 'the same value');
  });
});
