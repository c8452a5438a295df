// What Frames × Pixels asks of the engine's servers and requests (SPEC §3, §5): the model at its
// revision, the context and image limit, the frame store as the one media folder, and the decoding.
import type { PackageLayout } from '../package/layout';
import { buildChatRequest, type ChatRequestBody, type Decoding, type FrameRef } from '../../../serving/chatRequest';
import type { LaunchOptions, ServedModel } from './launchServers';
import { realFrameStoreDir } from '../frames/realStore';
import { MAX_IMAGES, MAX_MODEL_LEN, MAX_TOKENS, MODEL, MODEL_REVISION, TEMPERATURE } from '../rules/constants';

export const FP_SERVED_MODEL: ServedModel = { name: MODEL, revision: MODEL_REVISION, maxModelLen: MAX_MODEL_LEN, maxImages: MAX_IMAGES };

export const FP_DECODING: Decoding = { temperature: TEMPERATURE, maxTokens: MAX_TOKENS };

/** The launch options FP fixes: its model, and the frame store as the allowed media path. */
export function fpLaunchOptions(layout: PackageLayout): Pick<LaunchOptions, 'model' | 'allowedMediaPath' | 'mediaDirs'> {
  // The real path: vLLM takes this flag literally but resolves each file (vllm/multimodal/utils.py).
  // Checked from the package root: a link at .fpsweep/frames is refused, never given to vLLM (issue 42).
  const store = realFrameStoreDir(layout.root, layout.frameStoreDir);
  return { model: FP_SERVED_MODEL, allowedMediaPath: store, mediaDirs: [store] };
}

/** FP's chat body: the prompt after the frames, with SPEC §3's decoding. */
export function fpChatRequest(input: { model: string; promptText: string; images: readonly FrameRef[] }): ChatRequestBody {
  return buildChatRequest({ ...input, decoding: FP_DECODING });
}
