// Fixed by the protocol (seed §6): never configurable, never changed by a knob.
export const MODEL = 'Qwen/Qwen3-VL-8B-Instruct';
export const MODEL_REVISION = '0c351dd01ed87e9c1b53cbc748cba10e6187ff3b';
export const MAX_MODEL_LEN = 65536;
export const MAX_IMAGES = 1024;
export const TOKEN_BUDGET = 58000;
/** Tokens kept for the text part when sizing the fps cap (seed: `58000 - 1500`). */
export const TEXT_RESERVE = 1500;
export const JPEG_QUALITY = 85;
export const JPEG_CHROMA_SUBSAMPLING = '4:2:0';
export const TEMPERATURE = 0;
export const MAX_TOKENS = 128;
/** Stored frames are NA for conditions that need more than this many frames (seed: too_short ≤ 32). */
export const TOO_SHORT_MAX_FRAMES = 32;
/** Timestamps closer than this are a tie (SPEC §2.1). */
export const TIE_EPS_S = 1e-9;
