import { strict as assert } from 'node:assert';
import { server } from './hooks';

/** One scrape of a /metrics endpoint in Prometheus text format, read back by name and labels. */
export class Scrape {
  constructor(readonly text: string) {}

  /**
   * The sum of the samples named `name` whose labels include `labels` (another label on the line is
   * summed over); undefined when no line matches, as for a counter never incremented.
   */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    let sum: number | undefined;
    for (const line of this.text.split('\n')) {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match || match[1] !== name) continue;
      const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
      if (Object.entries(labels).every(([key, value]) => found[key] === value)) sum = (sum ?? 0) + Number(match[3]);
    }
    return sum;
  }

  /** Like `value`, with 0 for no line (a counter or gauge series that does not exist yet). */
  count(name: string, labels: Record<string, string> = {}): number {
    return this.value(name, labels) ?? 0;
  }
}

/** GET /metrics (the test server's unless `baseUrl`), which must answer 200 with Prometheus text. */
export async function scrape(baseUrl = server().url, headers: Record<string, string> = {}): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`, { headers });
  const text = await response.text();
  assert.equal(response.status, 200, `GET /metrics answered ${response.status}: ${text}`);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return new Scrape(text);
}
