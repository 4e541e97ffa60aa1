import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ProviderCallReport } from '../ai/providers/types';
import type { DeliveryOutcome } from '../domain/push/delivery';
import type { JobName } from '../jobs/definitions';
import { actorGauges, queueGauge, socketGauge, type ActorCounts, type QueueCounts, type SocketCounts } from './liveGauges';

/** How one run of a job ended: done, failed with a retry to come, or failed for good. */
export type JobRunOutcome = 'completed' | 'retried' | 'failed';

/** A push delivery that threw (network, 429, 5xx): its job decides whether to retry. */
export type PushDeliveryResult = DeliveryOutcome | 'error';

/** A count of open things, raised and lowered where they open and close. */
export interface OpenCount {
  inc(): void;
  dec(): void;
}

/**
 * The process's Prometheus metrics, one registry per process (AppContext.metrics), so several apps in
 * one test process keep theirs apart. Counters and histograms are recorded where things happen; live
 * state (actors, sockets, queues) is read at scrape time from the parts `watch*` is handed.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly #providerDuration: Histogram<'provider' | 'outcome'>;
  readonly #providerFirstDelta: Histogram<'provider'>;
  readonly #providerErrors: Counter<'provider' | 'failure'>;
  readonly #jobRuns: Counter<'kind' | 'outcome'>;
  readonly #pushDeliveries: Counter<'outcome'>;
  /** Widget answers streaming (SSE) from this node right now. */
  readonly sseStreams: OpenCount;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
    this.#httpDuration = new Histogram({
      name: 'parley_http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#providerDuration = new Histogram({
      name: 'parley_ai_provider_request_duration_seconds',
      help: 'AI provider calls from request to whole answer (retries included), by provider and outcome (ok, error, aborted)',
      labelNames: ['provider', 'outcome'],
      buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120],
      registers,
    });
    this.#providerFirstDelta = new Histogram({
      name: 'parley_ai_provider_first_token_seconds',
      help: 'Streamed AI provider calls: time until the first text arrived, by provider',
      labelNames: ['provider'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30],
      registers,
    });
    this.#providerErrors = new Counter({
      name: 'parley_ai_provider_errors_total',
      help: 'AI provider calls that failed, by provider and failure',
      labelNames: ['provider', 'failure'],
      registers,
    });
    this.#jobRuns = new Counter({
      name: 'parley_job_runs_total',
      help: 'Background job runs by kind and outcome (completed, retried, failed)',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.#pushDeliveries = new Counter({
      name: 'parley_push_deliveries_total',
      help: 'Web push delivery attempts by outcome (sent, gone, expired, refused, unconfigured, error)',
      labelNames: ['outcome'],
      registers,
    });
    this.sseStreams = new Gauge({ name: 'parley_sse_streams_open', help: 'Widget answers streaming (SSE) from this node', registers });
  }

  /** Labels by route template (not the raw path) so ids do not explode the label set. */
  readonly observeRequests: RequestHandler = (req, res, next) => {
    const stop = this.#httpDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      stop({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };

  /** The same histogram, for the hot routes (src/http/hotRoutes.ts) that time themselves. */
  readonly observeRequest = (method: string, route: string, status: number, seconds: number): void => {
    this.#httpDuration.observe({ method, route, status: String(status) }, seconds);
  };

  /** An arrow so that provider endpoints can carry it as their observer. */
  readonly providerCall = ({ provider, outcome, seconds, firstDeltaSeconds }: ProviderCallReport): void => {
    const failed = outcome !== 'ok' && outcome !== 'aborted';
    this.#providerDuration.observe({ provider, outcome: failed ? 'error' : outcome }, seconds);
    if (firstDeltaSeconds !== undefined) this.#providerFirstDelta.observe({ provider }, firstDeltaSeconds);
    if (failed) this.#providerErrors.inc({ provider, failure: outcome });
  };

  jobRun(kind: JobName, outcome: JobRunOutcome): void {
    this.#jobRuns.inc({ kind, outcome });
  }

  pushDelivery(outcome: PushDeliveryResult): void {
    this.#pushDeliveries.inc({ outcome });
  }

  watchActors(actors: ActorCounts): void {
    actorGauges(this.registry, actors);
  }

  watchSockets(sockets: SocketCounts): void {
    socketGauge(this.registry, sockets);
  }

  watchQueues(queues: QueueCounts): void {
    queueGauge(this.registry, queues);
  }

  readonly serve: RequestHandler = async (_req, res) => {
    res.type(this.registry.contentType).send(await this.registry.metrics());
  };
}
