// Where "Open in system player" can send a clip (issue 36 point 2; no vscode: tested under plain mocha). The
// extension runs where the files are (extensionKind workspace): over Remote-SSH, or in a browser (code-server),
// a file: URI names a file on the remote host, which the user's own machine cannot open — env.openExternal would
// hand the local OS a path that is not there. There the clip is revealed in the Explorer, whose "Download…" brings
// it to the user's machine, and its path can be copied.

export type SystemPlayerRoute = { open: true } | { open: false; why: string };

export interface WhereWeRun {
  /** vscode.env.remoteName: 'ssh-remote', 'wsl', 'dev-container'…; undefined on the user's own machine. */
  remoteName: string | undefined;
  /** vscode.env.uiKind is UIKind.Web (code-server, vscode.dev). */
  web: boolean;
}

export function systemPlayerRoute(where: WhereWeRun, file: string): SystemPlayerRoute {
  if (where.remoteName !== undefined) {
    const why = `${file} is on the remote host (${where.remoteName}): reveal it in the Explorer and use Download… to play it on this machine.`;
    return { open: false, why };
  }
  if (where.web)
    return { open: false, why: `${file} is on the server this browser window works on: reveal it in the Explorer and use Download… to play it here.` };
  return { open: true };
}
