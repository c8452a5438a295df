// "Open in system player" (issue 36 point 2): the OS's player only where the file is on the user's own machine; over
// Remote-SSH or in a browser the file is on another host, so the command reveals it for Download… instead.
import * as assert from 'node:assert/strict';
import { systemPlayerRoute } from '../../../../src/extension/protocols/caption/systemPlayerRoute';

describe('caption viewer: where "Open in system player" sends a clip', () => {
  it('opens it with the OS on the desktop, on the local machine', () => {
    assert.deepEqual(systemPlayerRoute({ remoteName: undefined, web: false }, '/v/clip.mp4'), { open: true });
  });

  it('over Remote-SSH: not opened (the local OS has no such path), the remote named, Download… offered', () => {
    const r = systemPlayerRoute({ remoteName: 'ssh-remote', web: false }, '/v/clip.mp4');
    assert.equal(r.open, false);
    assert.match(!r.open ? r.why : '', /\/v\/clip\.mp4 is on the remote host \(ssh-remote\).*Download…/);
  });

  it('in a browser (code-server): not opened, Download… offered', () => {
    const r = systemPlayerRoute({ remoteName: undefined, web: true }, '/v/clip.mp4');
    assert.equal(r.open, false);
    assert.match(!r.open ? r.why : '', /Download…/);
  });
});
