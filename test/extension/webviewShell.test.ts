// The webviews' one shell (webviewShell.ts): the page the report panels and the caption viewer had each built, now
// built once, with the theme stylesheet linked before the panel's own; the CSP, the nonce on the one script, the
// files through asWebviewUri, and the panels' resource roots.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { webviewHtml, webviewMediaRoot, webviewOptions } from '../../src/extension/webviewShell';

/** A stand-in for vscode.Uri: what the shell uses of it (path, with, toString). */
function fakeUri(p: string): vscode.Uri {
  return { scheme: 'file', path: p, with: (c: { path: string }) => fakeUri(c.path), toString: () => `file://${p}` } as unknown as vscode.Uri;
}

const ORIGIN = 'https://file+.vscode-resource.vscode-cdn.net';
const webview = { cspSource: ORIGIN, asWebviewUri: (u: vscode.Uri) => ({ toString: () => `${ORIGIN}${u.path}` }) } as unknown as Pick<
  vscode.Webview,
  'cspSource' | 'asWebviewUri'
>;
const ext = fakeUri('/ext/fpsweep');

describe('webview shell', () => {
  it("gives the report panel's page as it was, with the theme stylesheet before the report's", () => {
    const html = webviewHtml(webview, ext, { bundle: 'report', title: 'Findings', data: { kind: 'findings' }, loading: 'Loading the report…' });
    const nonce = /script-src 'nonce-([^']+)'/.exec(html)![1];
    const m = `${ORIGIN}/ext/fpsweep/dist/media`;
    assert.equal(
      html,
      `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${ORIGIN}; img-src ${ORIGIN}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${m}/theme.css" rel="stylesheet">
<link href="${m}/report.css" rel="stylesheet">
<title>fpsweep: Findings</title>
</head>
<body data-kind="findings">
<main id="app" aria-live="polite"><p class="muted">Loading the report…</p></main>
<script nonce="${nonce}" src="${m}/report.js"></script>
</body>
</html>`,
    );
  });

  it("lets a page that plays media have media-src, and the caption viewer's body says what it is", () => {
    const html = webviewHtml(webview, ext, {
      bundle: 'captionViewer',
      title: 'caption viewer',
      data: { view: 'caption-viewer' },
      loading: 'Loading the videos…',
      media: true,
    });
    assert.match(html, new RegExp(`media-src ${ORIGIN.replace(/[.+]/g, '\\$&')};`));
    assert.match(html, /<body data-view="caption-viewer">/);
    assert.match(html, /src="[^"]*\/dist\/media\/captionViewer\.js"/);
    assert.doesNotMatch(webviewHtml(webview, ext, { bundle: 'report', title: 't', data: {}, loading: '' }), /media-src/);
  });

  it('makes a new nonce for each page, on its one script', () => {
    const page = { bundle: 'report', title: 't', data: {}, loading: '' };
    const nonces = [webviewHtml(webview, ext, page), webviewHtml(webview, ext, page)].map((h) => /<script nonce="([^"]+)"/.exec(h)![1]);
    assert.notEqual(nonces[0], nonces[1]);
    assert.equal(webviewHtml(webview, ext, page).match(/<script/g)?.length, 1);
  });

  it('escapes what it writes into the page', () => {
    const html = webviewHtml(webview, ext, { bundle: 'report', title: '<b>"x"</b>', data: { kind: '"><script>' }, loading: '<i>' });
    assert.doesNotMatch(html, /<b>|"><script>|<i>/);
    assert.match(html, /data-kind="&#34;&#62;&#60;script&#62;"/);
    assert.throws(() => webviewHtml(webview, ext, { bundle: 'report', title: 't', data: { 'x="y': 'v' }, loading: '' }), /not a data attribute name/);
  });

  it('limits resources to the bundles and the roots a panel names', () => {
    assert.equal(webviewMediaRoot(ext).path, path.posix.join('/ext/fpsweep', 'dist', 'media'));
    const opts = webviewOptions(ext, [fakeUri('/videos')]);
    assert.equal(opts.enableScripts, true);
    assert.deepEqual(
      opts.localResourceRoots?.map((u) => u.path),
      ['/ext/fpsweep/dist/media', '/videos'],
    );
    assert.deepEqual(
      webviewOptions(ext).localResourceRoots?.map((u) => u.path),
      ['/ext/fpsweep/dist/media'],
    );
  });
});
