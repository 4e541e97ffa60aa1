import Mocha from 'mocha';

/**
 * Mocha's spec reporter plus one plain closing line, `N passed, N failed, N skipped`, that CI reads
 * whatever the runner.
 */
class SpecWithSummary extends Mocha.reporters.Spec {
  override epilogue(): void {
    super.epilogue();
    const { passes, failures, pending } = this.stats;
    process.stdout.write(`${passes} passed, ${failures} failed, ${pending} skipped\n`);
  }
}

export = SpecWithSummary;
