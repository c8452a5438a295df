// The item inspector's messages between its panel (inspectorPanel.ts) and its webview (media/src/protocols/fp/
// inspector.ts). Types for both sides; the zod schemas of what the webview sends or keeps are the host's checks (the
// webview imports types only).
import { z } from 'zod';
import type { ItemInspection } from '../../../core/protocols/fp/inspect/types';

/** What the webview says: it is ready for the item (its only message; the host decides what to show). */
export const inspectorRequestSchema = z.object({ type: z.literal('ready') }).strict();

/**
 * What the webview keeps across a window reload (vscode.setState; VS Code hands it to the panel serializer): the
 * item shown and the conditions put first. The package is the one the extension follows then. It is the webview's
 * word: the host parses it (restoredInspectTarget) before it reads anything.
 */
export const inspectorStateSchema = z
  .object({
    benchmark: z.string().min(1).max(255),
    itemId: z.string().min(1).max(512),
    conditions: z.array(z.string().min(1).max(64)).max(64),
  })
  .strict();
export type InspectorState = z.infer<typeof inspectorStateSchema>;

/** The item being read. */
export interface InspectorLoadingMessage {
  type: 'loading';
  benchmark: string;
  itemId: string;
}

/**
 * The item as the package's files have it, and each frame's webview URI by condition and frame (null: missing or
 * refused, `problems` says why). `making` frames the run no longer has are being made again (a `frames` message
 * follows, or `makeFailed`); `state` is what the webview keeps for a reload.
 */
export interface InspectorItemMessage {
  type: 'item';
  model: ItemInspection;
  frameUris: (string | null)[][];
  making: number;
  state: InspectorState;
  /** How long the host took to read the item and check its frame files (ms): the e2e records it with the open. */
  readMs: number;
}

/** The same item with the frames made again: the webview fills them in where they were missing. */
export interface InspectorFramesMessage {
  type: 'frames';
  model: ItemInspection;
  frameUris: (string | null)[][];
}

/** The frames could not be made again (the item stays shown, its missing frames say so). */
export interface InspectorMakeFailedMessage {
  type: 'makeFailed';
  message: string;
}

export interface InspectorErrorMessage {
  type: 'error';
  message: string;
}

export type InspectorHostMessage = InspectorLoadingMessage | InspectorItemMessage | InspectorFramesMessage | InspectorMakeFailedMessage | InspectorErrorMessage;
