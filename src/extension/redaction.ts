// The extension's side of the one redactor (core/security/secrets.ts): the output channel masks every registered
// secret whoever writes to it, and a token read from SecretStorage is registered as it is read.
import type * as vscode from 'vscode';
import { redactSecrets, registerSecret } from '../core/security/secrets';

const WRITES = new Set<PropertyKey>(['append', 'appendLine', 'replace']);

/** `channel` with append, appendLine and replace passing redactSecrets; everything else as it is. */
export function redactingOutputChannel(channel: vscode.OutputChannel): vscode.OutputChannel {
  return new Proxy(channel, {
    get(target, prop) {
      if (WRITES.has(prop)) {
        const write = (target as unknown as Record<PropertyKey, (text: string) => void>)[prop];
        return (text: string) => write.call(target, redactSecrets(text));
      }
      return unchanged(target, prop);
    },
  });
}

/** `storage` whose get registers what it returns (and store what it keeps) as a secret to mask. */
export function registeringSecretStorage(storage: vscode.SecretStorage): vscode.SecretStorage {
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === 'get') {
        return async (key: string) => {
          const value = await target.get(key);
          registerSecret(value, 'secret');
          return value;
        };
      }
      if (prop === 'store') {
        return (key: string, value: string) => {
          registerSecret(value, 'secret');
          return target.store(key, value);
        };
      }
      return unchanged(target, prop);
    },
  });
}

/** What the proxied object has under `prop`, as it is (a method bound to the object). */
function unchanged(target: object, prop: PropertyKey): unknown {
  const v = Reflect.get(target, prop, target) as unknown;
  return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
}
