import type { RequestHandler } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics for one app: process defaults plus HTTP latency by route template. */
export class Metrics {
  readonly registry = new Registry();
  readonly #httpDuration: Histogram;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
    this.#httpDuration = new Histogram({
      name: 'parley_http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
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

  readonly serve: RequestHandler = async (_req, res) => {
    res.type(this.registry.contentType).send(await this.registry.metrics());
  };
}
