import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Answer {
  status: number;
  ms: number;
  body: string;
}

export interface HttpTarget {
  host: string;
  port: number;
  agent: Agent;
}

export const httpTarget = (port: number, sockets: number): HttpTarget => ({ host: '127.0.0.1', port, agent: new Agent({ keepAlive: true, maxSockets: sockets }) });

/**
 * One GET over a keep-alive connection, timed from just before it is written to the last byte read.
 * A reused socket the server closed for idling as we picked it (ECONNRESET before anything was
 * processed) is retried, as Node's documentation advises; any other error fails the request.
 */
export function timedGet(target: HttpTarget, path: string, headers: Record<string, string> = {}, since = performance.now()): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: target.host, port: target.port, path, method: 'GET', agent: target.agent, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - since, body }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && error.code === 'ECONNRESET') resolve(timedGet(target, path, headers, since));
      else reject(error);
    });
    req.end();
  });
}
