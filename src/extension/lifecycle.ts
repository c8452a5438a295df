// One Disposable base for every manager (after vscode-pull-request-github's common/lifecycle.ts):
// whatever a manager creates is _register()ed and goes away with it, so nothing leaks on deactivate.
import * as vscode from 'vscode';

export abstract class Disposable implements vscode.Disposable {
  private _disposed = false;
  private readonly _disposables: vscode.Disposable[] = [];

  protected get isDisposed(): boolean {
    return this._disposed;
  }

  protected _register<T extends vscode.Disposable>(value: T): T {
    if (this._disposed) value.dispose();
    else this._disposables.push(value);
    return value;
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    // Last in, first out: a listener goes before the emitter it listens to.
    while (this._disposables.length) {
      try {
        this._disposables.pop()!.dispose();
      } catch {
        // One failing dispose must not keep the others alive.
      }
    }
  }
}

/** Wraps a plain cleanup function (timers, fs watchers) as a Disposable. */
export function toDisposable(fn: () => void): vscode.Disposable {
  let done = false;
  return {
    dispose() {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}

/** Registers a command whose failure is shown to the user (one line, `fpsweep: …`) instead of being lost. */
export function registerGuardedCommand(id: string, fn: Parameters<typeof vscode.commands.registerCommand>[1]): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      await fn(...args);
    } catch (err) {
      void vscode.window.showErrorMessage(`fpsweep: ${(err as Error).message}`);
    }
  });
}
