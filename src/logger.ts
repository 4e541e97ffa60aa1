import pino, { type DestinationStream, type Logger } from 'pino';

/** Structured JSON logs. Credentials are redacted wherever they could appear. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-identity"]',
          '*.password',
          '*.api_key',
          '*.apiKey',
          '*.token',
          '*.secret',
          '*.identity',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * A warning that repeats for as long as an outage lasts (every request, every reconnect attempt):
 * the first is logged, then at most one per `intervalMs`, saying how many were left out meanwhile,
 * so a long outage costs a few lines a minute instead of one per event.
 */
export function throttledWarn(intervalMs = 5_000): (logger: Logger, details: Record<string, unknown>, message: string) => void {
  let last = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (logger, details, message) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    logger.warn(suppressed ? { ...details, suppressed } : details, message);
    last = now;
    suppressed = 0;
  };
}
