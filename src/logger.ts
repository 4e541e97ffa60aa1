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
