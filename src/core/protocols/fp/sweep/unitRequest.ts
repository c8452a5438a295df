// The chat body of one unit of the plan: the one place the sweep and the pre-flight build it, so the
// pre-flight sends exactly what the sweep will (same prompt, same frames, same parameters).
import type { WorkUnit } from '../plan';
import { buildPromptText } from '../rules/prompt';
import type { ChatRequestBody, FrameRef } from '../../../serving/chatRequest';
import { fpChatRequest } from '../serving/fpServing';

export function unitRequestBody(model: string, u: WorkUnit, images: readonly FrameRef[]): ChatRequestBody {
  return fpChatRequest({ model, promptText: buildPromptText(u.item.question, u.item.options), images });
}
