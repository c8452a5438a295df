// The caption viewer's messages between the panel (viewerPanel.ts) and its webview (media/src/protocols/caption/).
// Types for both sides; the zod schema of what the webview sends is the host's check (the webview imports types only).
import { z } from 'zod';
import type { PickerVideo, VideoViewerModel } from '../../../core/protocols/caption/viewerTypes';

/** What the webview asks: its first message, or another video of the root. */
export const viewerRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }).strict(),
  z.object({ type: z.literal('pick'), stem: z.string().min(1).max(255) }).strict(),
  /** Open the shown video's clip (its position in the model's clips) with the OS's player (issue 36 point 2). */
  z.object({ type: z.literal('systemPlayer'), stem: z.string().min(1).max(255), clip: z.number().int().min(0).max(100_000) }).strict(),
]);
export type ViewerRequest = z.infer<typeof viewerRequestSchema>;

/** What the webview keeps across a reload (vscode.setState): the root it shows and its video. The host checks it
 * again before it opens anything (viewerPanel.ts reviveCaptionViewer): it is the webview's word, not ours. */
export const viewerStateSchema = z.object({ root: z.string().min(1).max(4096), stem: z.string().min(1).max(255).nullable() }).strict();
export type ViewerState = z.infer<typeof viewerStateSchema>;

/** The picker: the root's videos, and the one shown. */
export interface ViewerVideosMessage {
  type: 'videos';
  root: string;
  videos: PickerVideo[];
  selected: string | null;
}

/** One video: its model, and each clip's webview URI and its MP3 sidecar's (null: refused or missing, the model's
 * problems say why). */
export interface ViewerVideoMessage {
  type: 'video';
  model: VideoViewerModel;
  clipUris: (string | null)[];
  sidecarUris: (string | null)[];
}

export interface ViewerErrorMessage {
  type: 'error';
  stem: string;
  message: string;
}

export type ViewerHostMessage = ViewerVideosMessage | ViewerVideoMessage | ViewerErrorMessage;
