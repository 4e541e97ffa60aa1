import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/env';
import type { LoginLockout } from './domain/accounts/loginLockout';
import type { Database } from './db/connect';
import type { NodeLock } from './db/nodeLock';
import type { JobQueue } from './jobs/definitions';
import type { LimiterFactory } from './limits/limiters';
import type { Metrics } from './ops/metrics';
import type { ReadinessCheck } from './readiness';
import type { SecretBox } from './security/encryption';

/**
 * The process-wide services every surface, actor and job is handed. Built once at start, closed once
 * at stop (src/boot/openContext.ts); only types here, so any module may take one without loading boot code.
 */
export interface AppContext {
  config: Readonly<Config>;
  logger: Logger;
  db: Database;
  redis?: Redis;
  secrets: SecretBox;
  limiters: LimiterFactory;
  lockout: LoginLockout;
  readiness: ReadinessCheck[];
  /** Background work: BullMQ in cluster mode (a worker process runs it), this process in single-node mode. */
  jobs: JobQueue;
  /** The process's one metrics registry; domain code records into it, `/metrics` serves it. */
  metrics: Metrics;
  /** Web processes only: this process's claim on the database (src/db/nodeLock.ts). */
  nodeLock?: NodeLock;
}
