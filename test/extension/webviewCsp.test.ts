// The webviews' one CSP (webviewCsp.ts): the report panels' policy is what it was before it moved here, and the
// caption viewer's adds media from the webview's own origin and nothing else (no inline script, no other origin).
import * as assert from 'node:assert/strict';
import { newNonce, webviewCsp } from '../../src/extension/webviewCsp';

const webview = { cspSource: 'https://file+.vscode-resource.vscode-cdn.net' };

describe('webview CSP', () => {
  it("gives the report panels' policy unchanged", () => {
    assert.equal(webviewCsp(webview, 'N0NCE'), `default-src 'none'; style-src ${webview.cspSource}; img-src ${webview.cspSource}; script-src 'nonce-N0NCE';`);
  });

  it('adds media-src from the webview origin only for a page that plays media', () => {
    const csp = webviewCsp(webview, 'N0NCE', { media: true });
    assert.match(csp, new RegExp(`; media-src ${webview.cspSource.replace(/[.+]/g, '\\$&')}; `));
    assert.doesNotMatch(csp, /unsafe|\*|data:|blob:/);
  });

  it('makes a new nonce each time', () => {
    assert.notEqual(newNonce(), newNonce());
    assert.match(newNonce(), /^[A-Za-z0-9+/]{22}==$/);
  });
});
