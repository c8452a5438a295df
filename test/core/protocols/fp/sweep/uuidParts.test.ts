// Issue 34: each image part carries vLLM's `uuid` (chatRequest.ts: what 0.11 does with it, and the sources), and that
// uuid names the JPEG's bytes: equal bytes → equal uuid, any other bytes → another, whatever the transport. The URL
// is always sent too (0.11 loads every image; a uuid-only part fails on a cache miss). Issue 17 had sent none.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import type { WorkUnit } from '../../../../../src/core/protocols/fp/plan';
import { unitRequestBody } from '../../../../../src/core/protocols/fp/sweep/unitRequest';
import { contentUuid, type ImagePart } from '../../../../../src/core/serving/chatRequest';

const unit = { benchmark: 'b', item: { item_id: 'i1', question: 'Q?', options: ['a', 'b'], answer: 'A' }, condition: 'v_8_s224' } as unknown as WorkUnit;

describe('fp requests: content uuids on image parts', () => {
  it("a uuid is 128 bits of the bytes' SHA-256: the same bytes the same uuid, one changed byte another", () => {
    const a = Buffer.from([0xff, 0xd8, 1, 2, 3, 0xff, 0xd9]);
    assert.equal(contentUuid(a), `sha256-${createHash('sha256').update(a).digest('hex').slice(0, 32)}`);
    assert.equal(contentUuid(Buffer.from(a)), contentUuid(a));
    const b = Buffer.from(a);
    b[3] ^= 1;
    assert.notEqual(contentUuid(b), contentUuid(a));
  });

  it('each image part is {type, image_url: {url}, uuid}, for file:// and data: frames alike; none without a uuid', () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);
    const body = unitRequestBody('m', unit, [
      { fileUrl: 'file:///store/h/a.jpg', uuid: contentUuid(jpeg) },
      { jpeg, uuid: contentUuid(jpeg) },
      { fileUrl: 'file:///store/h/b.jpg' },
    ]);
    const images = body.messages[0].content.filter((p): p is ImagePart => p.type === 'image_url');
    assert.equal(images.length, 3);
    assert.deepEqual(Object.keys(images[0]).sort(), ['image_url', 'type', 'uuid']);
    assert.equal(images[0].image_url.url, 'file:///store/h/a.jpg');
    assert.equal(images[1].image_url.url, `data:image/jpeg;base64,${jpeg.toString('base64')}`);
    assert.equal(images[0].uuid, images[1].uuid);
    assert.deepEqual(Object.keys(images[2]).sort(), ['image_url', 'type']);
  });
});
