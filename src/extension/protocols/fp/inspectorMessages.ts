// The item inspector's messages between its panel (inspectorPanel.ts) and its webview (media/src/protocols/fp/
// inspector.ts). Types for both sides; the zod schema of what the webview sends is the host's check (the webview
// imports types only).
import { z } from 'zod';
import type { ItemInspection } from '../../../core/protocols/fp/inspect/types';

/** What the webview says: it is ready for the item (its only message; the host decides what to show). */
export const inspectorRequestSchema = z.object({ type: z.literal('ready') }).strict();

/** The item being read (the CLI runs; a rebuild of many frames takes a moment). */
export interface InspectorLoadingMessage {
  type: 'loading';
  benchmark: string;
  itemId: string;
}

/** The model, and each frame's webview URI by condition and frame (null: missing or refused, `problems` says why). */
export interface InspectorItemMessage {
  type: 'item';
  model: ItemInspection;
  frameUris: (string | null)[][];
}

export interface InspectorErrorMessage {
  type: 'error';
  message: string;
}

export type InspectorHostMessage = InspectorLoadingMessage | InspectorItemMessage | InspectorErrorMessage;
