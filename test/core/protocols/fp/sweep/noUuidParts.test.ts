// Issue 17 asked for a `uuid` on each image part (the JPEG's sha256) only if vLLM 0.11.0's own chat schema takes
// it: a part vLLM refuses loses the run. vLLM main's chat_utils.py reads `part.get("uuid")` (PR #23449, "User-provided
// uuids for medias in chat", 2025-08), but 0.11.0's own files could not be read here (the repository snapshot is
// over the fetch limit and the file index does not name the tag's version), so it is not verified at the tag: we
// send none. This keeps it so: every image part is exactly {type, image_url: {url}}, for file:// and data: frames.
import { strict as assert } from 'node:assert';
import type { WorkUnit } from '../../../../../src/core/protocols/fp/plan';
import { unitRequestBody } from '../../../../../src/core/protocols/fp/sweep/unitRequest';

describe('fp requests: no uuid on image parts', () => {
  it('a unit request carries no uuid (nor any other field) on its image parts, whatever the transport', () => {
    const u = { benchmark: 'b', item: { item_id: 'i1', question: 'Q?', options: ['a', 'b'], answer: 'A' }, condition: 'v_8_s224' } as unknown as WorkUnit;
    const body = unitRequestBody('m', u, [{ fileUrl: 'file:///store/h/a.jpg' }, { jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xd9]) }]);
    const parts = body.messages[0].content;
    const images = parts.filter((p) => p.type === 'image_url');
    assert.equal(images.length, 2);
    for (const p of images) {
      assert.deepEqual(Object.keys(p).sort(), ['image_url', 'type']);
      assert.deepEqual(Object.keys((p as { image_url: object }).image_url), ['url']);
    }
    assert.ok(!JSON.stringify(body).includes('uuid'));
  });
});
