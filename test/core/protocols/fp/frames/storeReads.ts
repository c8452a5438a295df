// How many frames the store read (their bytes, to hash them) while some work ran: the count the frame store's
// identity checks (issue 45) are asserted by. Every read of a frame's bytes goes through readOwnWithIdentity.
import { DirHandle } from '../../../../../src/core/containment/dirHandle';

export async function reads<T>(work: () => Promise<T>): Promise<{ result: T; read: number }> {
  let read = 0;
  const original = DirHandle.prototype.readOwnWithIdentity;
  DirHandle.prototype.readOwnWithIdentity = function (this: DirHandle, name: string) {
    read++;
    return original.call(this, name);
  };
  try {
    return { result: await work(), read };
  } finally {
    DirHandle.prototype.readOwnWithIdentity = original;
  }
}
