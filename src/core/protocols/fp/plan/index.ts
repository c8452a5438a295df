// The work plan: see types.ts for the contract the runner and the dry run use.
export * from './types';
export { buildWorkPlan, type BuildPlanOptions } from './buildWorkPlan';
export { loadVideoFramePlans, type VideoFramePlans } from './framePlans';
