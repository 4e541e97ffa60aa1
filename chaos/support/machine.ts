import { commitOf, type Machine as BenchMachine } from '../../bench/support/report';

/** The bench's machine record, with the load read at both ends of the run and how busy the cores were. */
export interface Machine extends Omit<BenchMachine, 'loadAverage'> {
  /** 1-minute load average when the load started and when it stopped: other work on the machine skews every figure. */
  loadAverageStart: number;
  loadAverageEnd: number;
  /** Share of all cores busy during the load (everything on the machine, not only this run). */
  machineBusyShare: number;
}

/** The commit measured and whether the tree had uncommitted changes. */
export type Source = ReturnType<typeof commitOf>;

export { hardware, loadAverage, commitOf as source } from '../../bench/support/report';
