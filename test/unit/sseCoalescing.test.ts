import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { COALESCE_ABOVE, SseStream } from '../../src/http/sse';
import { eventually } from '../support/eventually';

/** The parts of an express response SseStream uses: what it wrote, call by call. */
class FakeResponse extends EventEmitter {
  writes: string[] = [];
  writableEnded = false;
  destroyed = false;
  closed = false;
  status(): this {
    return this;
  }
  setHeader(): void {}
  flushHeaders(): void {}
  write(text: string): boolean {
    this.writes.push(text);
    return true;
  }
  end(): void {
    this.writableEnded = true;
    this.closed = true;
    this.emit('close');
  }
}

const counter = { inc: () => undefined, dec: () => undefined };
const open = () => {
  const res = new FakeResponse();
  return { res, sse: new SseStream(res as unknown as Response, counter) };
};
const events = (writes: string[]) => writes.join('').split('\n\n').filter(Boolean).map((block) => block.split('\n'));

describe('SseStream: deltas coalesced under load, at once when idle', () => {
  it('with few streams open, every event is its own write, at once', () => {
    const { res, sse } = open();
    sse.send('meta', { id: 1 });
    sse.send('delta', { delta: 'a' });
    sse.send('delta', { delta: 'b' });
    assert.equal(res.writes.length, 3);
    sse.end();
  });

  it('with more than COALESCE_ABOVE open, the first delta goes at once and later ones together; order and ids are kept', async () => {
    const crowd = Array.from({ length: COALESCE_ABOVE }, open);
    const { res, sse } = open();
    try {
      sse.send('meta', { id: 1 });
      sse.send('delta', { delta: 'a' });
      assert.equal(res.writes.length, 2, 'meta and the first delta are not held');
      sse.send('delta', { delta: 'b' });
      sse.send('delta', { delta: 'c' });
      assert.equal(res.writes.length, 2, 'later deltas wait for the window');
      await eventually(() => res.writes.length, (n) => n === 3, 2_000);
      assert.equal(res.writes.length, 3, 'the window wrote both waiting deltas in one write');
      sse.send('delta', { delta: 'd' });
      sse.send('done', { message_id: 9 });
      assert.equal(res.writes.length, 4, 'done writes the waiting delta with it');
      assert.deepEqual(
        events(res.writes).map((lines) => [lines[0], lines[1], lines[2]]),
        [
          ['id: 1', 'event: meta', 'data: {"id":1}'],
          ['id: 2', 'event: delta', 'data: {"delta":"a"}'],
          ['id: 3', 'event: delta', 'data: {"delta":"b"}'],
          ['id: 4', 'event: delta', 'data: {"delta":"c"}'],
          ['id: 5', 'event: delta', 'data: {"delta":"d"}'],
          ['id: 6', 'event: done', 'data: {"message_id":9}'],
        ],
      );
    } finally {
      sse.end();
      for (const other of crowd) other.sse.end();
    }
  });

  it('end writes what was waiting before the stream ends', () => {
    const crowd = Array.from({ length: COALESCE_ABOVE }, open);
    const { res, sse } = open();
    sse.send('delta', { delta: 'a' });
    sse.send('delta', { delta: 'b' });
    sse.end();
    for (const other of crowd) other.sse.end();
    assert.deepEqual(events(res.writes).map((lines) => lines[2]), ['data: {"delta":"a"}', 'data: {"delta":"b"}']);
    assert.equal(res.writableEnded, true);
  });
});
