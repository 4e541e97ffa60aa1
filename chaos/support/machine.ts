export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  os: string;
  node: string;
  postgres: string;
  redis: string;
  /** 1-minute load average when the load started and when it stopped: other work on the machine skews every figure. */
  loadAverageStart: number;
  loadAverageEnd: number;
  /** Share of all cores busy during the load (everything on the machine, not only this run). */
  machineBusyShare: number;
}

export interface Source {
  commit: string;
  /** Uncommitted changes anywhere in the tree. */
  dirty: boolean;
}

export { hardware, loadAverage, commitOf as source } from '../../bench/support/report';
