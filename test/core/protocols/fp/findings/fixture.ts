// The findings fixture (test/fixtures/findings/sample.json): one benchmark per verdict, a hostile name, flips.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { findingsSchema, type Findings } from '../../../../../src/core/protocols/fp/findings/types';

export const FINDINGS_FIXTURE = path.join(__dirname, '..', '..', '..', '..', 'fixtures', 'findings', 'sample.json');

export function loadFindingsFixture(): Findings {
  return findingsSchema.parse(JSON.parse(readFileSync(FINDINGS_FIXTURE, 'utf8')));
}
