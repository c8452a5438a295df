// What every e2e script of ours shares: its named checks (each logged with its time; the first failure ends the
// script, named by the step it was in), a screenshot on failure, a bound on the whole script, and the last line that
// `npm run test:e2e` reads ("<name>: N passed, M failed", exit 1 on any failure).
import type { Workbench } from './workbench';

export class E2eScript {
  private step = 'starting';
  private passed = 0;
  private readonly failures: string[] = [];

  /** `workbench()`: the page once a check opened it (for the failure and timeout screenshots). */
  constructor(
    private readonly name: string,
    private readonly workbench: () => Workbench | undefined,
  ) {}

  log(msg: string): void {
    process.stdout.write(`[${this.name} ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
  }

  async check(name: string, fn: () => Promise<void>): Promise<void> {
    this.step = name;
    this.log(`▶ ${name}`);
    const t0 = Date.now();
    await fn();
    this.passed++;
    this.log(`✓ ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }

  /** A check threw: recorded against its step, with a screenshot of the page as it was. */
  async failed(err: unknown): Promise<void> {
    this.failures.push(`${this.step}: ${(err as Error).message}`);
    this.log(`✗ ${this.step}: ${(err as Error).stack ?? err}`);
    await this.workbench()
      ?.screenshot('failed')
      .catch(() => undefined);
  }

  /**
   * Runs `main` bounded by `timeoutS` for the whole script, then prints the counts and exits. No rejection handler
   * on purpose: a throw out of `main` (outside a check) is an unhandled rejection, which ends the run with exit 1.
   */
  run(main: () => Promise<void>, timeoutS: number, lastWords: () => void = () => undefined): void {
    const timer = setTimeout(async () => {
      this.failures.push(`${this.step}: the whole ${this.name} exceeded ${timeoutS} s`);
      this.log(`✗ timed out at step "${this.step}"`);
      await this.workbench()
        ?.screenshot('timeout')
        .catch(() => undefined);
      process.stdout.write(`${this.name}: ${this.passed} passed, ${this.failures.length} failed\n`);
      process.exit(1);
    }, timeoutS * 1000);
    void main().then(() => {
      clearTimeout(timer);
      lastWords();
      for (const f of this.failures) this.log(`FAILED ${f}`);
      process.stdout.write(`${this.name}: ${this.passed} passed, ${this.failures.length} failed\n`);
      process.exit(this.failures.length ? 1 : 0);
    });
  }
}
