export { CAPTION_SAMPLE_MARKER, makeCaptionSample, type CaptionSampleSummary, type CaptionSampleVideo } from './make';
export { planCaptionSample, segmentsDoc, type SampleClip, type SampleVideo } from './plan';
