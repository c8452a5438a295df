export { makeCutSample } from './make';
export { CUT_SAMPLE_FILES, planCutSample, type CutSampleVideo } from './plan';
