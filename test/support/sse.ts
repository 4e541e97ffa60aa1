import { server } from './hooks';

export interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

export interface SseReply {
  status: number;
  headers: Headers;
  /** Parsed events (SSE), or the JSON body when the answer was not a stream. */
  events: SseEvent[];
  body: any;
  /** Comment lines (keep-alives), counted. */
  comments: number;
}

/** POSTs and reads the whole answer, parsing it as an EventSource client would (event, data, id; comments skipped). */
export async function postStream(path: string, body: unknown, headers: Record<string, string> = {}, baseUrl = server().url): Promise<SseReply> {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: response.status, headers: response.headers, events: [], body: text ? JSON.parse(text) : undefined, comments: 0 };
  }
  return { status: response.status, headers: response.headers, body: undefined, ...parseSse(text) };
}

export function parseSse(text: string): { events: SseEvent[]; comments: number } {
  const events: SseEvent[] = [];
  let comments = 0;
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    const event: Partial<SseEvent> & { dataLines: string[] } = { dataLines: [] };
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) comments++;
      else if (line.startsWith('event:')) event.event = line.slice(6).trim();
      else if (line.startsWith('data:')) event.dataLines.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('id:')) event.id = line.slice(3).trim();
    }
    if (event.dataLines.length) events.push({ id: event.id, event: event.event ?? 'message', data: JSON.parse(event.dataLines.join('\n')) });
  }
  return { events, comments };
}
