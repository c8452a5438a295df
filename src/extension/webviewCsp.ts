// The one Content-Security-Policy of the extension's webviews: nothing by default, styles and images only from the
// webview's own resource origin, scripts only with the page's nonce. A panel that plays media (the caption viewer)
// adds media from the same origin, nothing more.
import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';

/** A fresh nonce for one page's script tags. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The policy of a page whose scripts carry `nonce`; `media`: `<video>`/`<audio>` from the resource roots too. */
export function webviewCsp(webview: Pick<vscode.Webview, 'cspSource'>, nonce: string, opts: { media?: boolean } = {}): string {
  const media = opts.media ? ` media-src ${webview.cspSource};` : '';
  return `default-src 'none'; style-src ${webview.cspSource}; img-src ${webview.cspSource};${media} script-src 'nonce-${nonce}';`;
}
