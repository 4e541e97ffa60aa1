import { strict as assert } from 'node:assert';
import { createParser } from 'eventsource-parser';
import { SseReader } from '../../src/ai/providers/sseReader';

interface Seen {
  data: string;
  event: string | undefined;
}

/** Feeds `chunks` to a reader and returns every event it handed over, in order. */
function read(chunks: Array<Buffer | string>, stopAt?: string): Seen[] {
  const seen: Seen[] = [];
  const reader = new SseReader((data, event) => {
    seen.push({ data, event });
    if (data === stopAt) return 'stop';
  });
  for (const chunk of chunks) {
    if (reader.feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk) === 'stop') break;
  }
  return seen;
}

/** The same bytes cut at every possible place, in two reads and one byte per read. */
function everySplit(text: string): Buffer[][] {
  const bytes = Buffer.from(text);
  const splits: Buffer[][] = [[bytes]];
  for (let at = 1; at < bytes.length; at++) splits.push([bytes.subarray(0, at), bytes.subarray(at)]);
  splits.push(Array.from(bytes, (byte) => Buffer.from([byte])));
  return splits;
}

/** What eventsource-parser (the reader used before) makes of the whole text, decoded at once. */
function reference(text: string): Seen[] {
  const seen: Seen[] = [];
  const parser = createParser({ onEvent: (event) => seen.push({ data: event.data, event: event.event }) });
  parser.feed(text);
  return seen;
}

describe('SseReader: provider event streams read as bytes', () => {
  it('reads OpenAI-style data-only events and the [DONE] marker', () => {
    const text = 'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {"choices":[{"delta":{"content":" there"}}]}\n\ndata: [DONE]\n\n';
    assert.deepEqual(read([text]), [
      { data: '{"choices":[{"delta":{"content":"Hi"}}]}', event: undefined },
      { data: '{"choices":[{"delta":{"content":" there"}}]}', event: undefined },
      { data: '[DONE]', event: undefined },
    ]);
  });

  it('gives the same events as the previous parser however the bytes are cut, with multi-byte characters split between reads', () => {
    const streams = [
      'event: message_start\ndata: {"type":"message_start"}\n\n: ping\n\nevent: content_block_delta\ndata: {"delta":{"text":"é€😀 \\"q\\" \\u00e9"}}\n\n',
      'data: {"candidates":[{"content":{"parts":[{"text":"日本語のテキスト"}]}}]}\r\n\r\ndata: {"x":1}\r\n\r\n',
      'data: one\ndata: two\n\ndata:no-space\n\ndata\n\nevent\ndata: after empty event name\n\n',
      'data: cr only\r\rdata: mixed\r\n\ndata: last\n\n',
      'id: 7\nretry: 100\nfoo: bar\ndata: with other fields\n\n',
    ];
    for (const text of streams) {
      const expected = reference(text);
      assert.ok(expected.length > 0);
      for (const chunks of everySplit(text)) assert.deepEqual(read(chunks), expected, `cut as ${chunks.map((c) => c.length).join('+')} bytes: ${JSON.stringify(text)}`);
    }
  });

  it('keeps a CRLF split between two reads as one line end', () => {
    assert.deepEqual(read(['data: a\r', '\ndata: b\r\n\r\n']), [{ data: 'a\nb', event: undefined }]);
  });

  it('skips a UTF-8 byte order mark at the start, also when it arrives in pieces', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const text = Buffer.concat([bom, Buffer.from('data: x\n\n')]);
    for (let at = 1; at < 5; at++) assert.deepEqual(read([text.subarray(0, at), text.subarray(at)]), [{ data: 'x', event: undefined }]);
  });

  it('drops an event the answer did not close with a blank line, and comments', () => {
    assert.deepEqual(read([': keepalive\n\ndata: whole\n\ndata: cut']), [{ data: 'whole', event: undefined }]);
  });

  it('hands over nothing after a handler said stop, in the same read or later', () => {
    assert.deepEqual(read(['data: a\n\ndata: stop\n\ndata: b\n\n', 'data: c\n\n'], 'stop'), [
      { data: 'a', event: undefined },
      { data: 'stop', event: undefined },
    ]);
  });
});
