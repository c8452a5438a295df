// `fpsweep sample`: a small complete run package, its ground truth, and the frame code tests read.
export { makeSamplePackage, type MakeSampleOptions, type SampleSummary } from './makeSample';
export {
  planSample,
  plannedTimestamp,
  describeSample,
  SAMPLE_BENCHMARKS,
  SAMPLE_GENERATOR_VERSION,
  type SampleFacts,
  type SamplePlan,
  type SampleVideo,
  type SampleItem,
  type ExistingRow,
  type MissingVideo,
} from './plan';
export { decodeFrameIndex, decodeFrameCode, readFrameCodeFromGrey, drawFrame, FrameCodeError, MAX_CODE, type FrameCode, type FrameInput } from './frameCode';
