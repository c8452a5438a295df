export { makeAvtimeSample, referenceAnswer, type AvtimeSampleSummary } from './make';
export { planAvtimeSample, planQueries, referenceEvents, relationOf, type Query, type RefEvent, type SampleAvVideo } from './plan';
