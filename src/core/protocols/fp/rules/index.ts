// The protocol (SPEC §2–3) in one folder: pure functions, one module each.
export * from './constants';
export * from './conditions';
export * from './selection';
export * from './resize';
export * from './qwenTokens';
export * from './prompt';
export * from './answer';
export * from './rules';
export * from './plan';
