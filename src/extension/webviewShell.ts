// The one HTML shell of the extension's webviews: every panel's page is this shell around its own bundle. It puts in
// the CSP (webviewCsp.ts) with a fresh nonce, the theme stylesheet every panel extends (media/src/theme.css), the
// panel's stylesheet and script (esbuild's web entries in dist/media, each reached through asWebviewUri), and an
// empty app the script fills; data arrives by message, never in this HTML. The panels' webview options come from here
// too: scripts on, resources only from dist/media and the roots a panel names (the caption viewer's videos).
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { newNonce, webviewCsp } from './webviewCsp';

/** The stylesheet of every page, before the panel's own: the theme colors and the base rules (body, headings…). */
export const THEME_STYLESHEET = 'theme.css';

/** One panel's page. */
export interface WebviewPage {
  /** The panel's bundle under dist/media: its script `<bundle>.js` and its stylesheet `<bundle>.css`. */
  bundle: string;
  /** The document title (after "fpsweep: "). */
  title: string;
  /** The body's data attributes (`kind` gives `data-kind`), which the script reads to know what to draw. */
  data: Readonly<Record<string, string>>;
  /** The line shown until the script has drawn the page. */
  loading: string;
  /** The page plays `<video>`/`<audio>` from its resource roots (the CSP's media-src). */
  media?: boolean;
}

/** The folder of the webview bundles (dist/media). */
export function webviewMediaRoot(extensionUri: vscode.Uri): vscode.Uri {
  // What vscode.Uri.joinPath does (a POSIX join on the path), kept off the vscode runtime so that it is testable.
  return extensionUri.with({ path: path.posix.join(extensionUri.path, 'dist', 'media') });
}

/** A panel's webview options: scripts on; resources from dist/media and `extraRoots` only. */
export function webviewOptions(extensionUri: vscode.Uri, extraRoots: readonly vscode.Uri[] = []): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [webviewMediaRoot(extensionUri), ...extraRoots] };
}

/** The page's HTML, with a new nonce each time. */
export function webviewHtml(webview: Pick<vscode.Webview, 'cspSource' | 'asWebviewUri'>, extensionUri: vscode.Uri, page: WebviewPage): string {
  const media = webviewMediaRoot(extensionUri);
  const uri = (file: string) => webview.asWebviewUri(media.with({ path: path.posix.join(media.path, file) })).toString();
  const nonce = newNonce();
  const data = Object.entries(page.data)
    .map(([k, v]) => {
      if (!/^[a-z][a-z0-9-]*$/.test(k)) throw new Error(`webview page: "${k}" is not a data attribute name`);
      return ` data-${k}="${escapeAttr(v)}"`;
    })
    .join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${webviewCsp(webview, nonce, { media: page.media })}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${escapeAttr(uri(THEME_STYLESHEET))}" rel="stylesheet">
<link href="${escapeAttr(uri(`${page.bundle}.css`))}" rel="stylesheet">
<title>fpsweep: ${escapeAttr(page.title)}</title>
</head>
<body${data}>
<main id="app" aria-live="polite"><p class="muted">${escapeAttr(page.loading)}</p></main>
<script nonce="${nonce}" src="${escapeAttr(uri(`${page.bundle}.js`))}"></script>
</body>
</html>`;
}

/** Text safe inside an attribute or an element: the values are ours, escaped all the same. */
function escapeAttr(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
