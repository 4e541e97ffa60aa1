import { startTokenProvider } from './tokenProvider';

/**
 * The bench provider as its own process: 2,000 streams at 30 tokens/s are 60,000 timed writes a
 * second, which must not wait behind the load generator's event loop (or skew its timings).
 */
startTokenProvider().then(
  ({ url }) => process.stdout.write(`${JSON.stringify({ msg: 'listening', url })}\n`),
  (error: unknown) => {
    process.stderr.write(`bench provider failed: ${String(error)}\n`);
    process.exit(1);
  },
);
process.once('SIGTERM', () => process.exit(0));
