// mocha's spec reporter plus a closing "N passed, N failed" line that CI reads as the run's count.
'use strict';
const Mocha = require('mocha');

class SpecWithTotals extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const s = runner.stats;
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      process.stdout.write(`unit: ${s.passes} passed, ${s.failures} failed${skipped}\n`);
    });
  }
}

module.exports = SpecWithTotals;
