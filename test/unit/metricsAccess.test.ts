import { strict as assert } from 'node:assert';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../../src/errors';
import { metricsAccess } from '../../src/ops/metricsAccess';

/** The /metrics guard's decision for one connection address, computed client address and header. */
function decide(remoteAddress: string, ip: string, authorization?: string, token?: string): 'open' | number {
  const req = { socket: { remoteAddress }, ip, method: 'GET', path: '/metrics', get: () => authorization } as unknown as Request;
  let outcome: 'open' | number = 'open';
  try {
    metricsAccess(token)(req, {} as Response, (() => undefined) as NextFunction);
  } catch (error) {
    assert.ok(error instanceof AppError);
    outcome = error.status;
  }
  return outcome;
}

describe('the /metrics guard', () => {
  it('opens to a loopback connection from a loopback client, IPv4, IPv6 and IPv4-mapped', () => {
    assert.equal(decide('127.0.0.1', '127.0.0.1'), 'open');
    assert.equal(decide('::1', '::1'), 'open');
    assert.equal(decide('::ffff:127.0.0.1', '::ffff:127.0.0.1'), 'open');
  });

  it('is a 404 for a remote connection claiming 127.0.0.1 in X-Forwarded-For (TRUST_PROXY=true)', () => {
    assert.equal(decide('203.0.113.9', '127.0.0.1'), 404);
  });

  it('is a 404 for an internet client behind a proxy on the same host', () => {
    assert.equal(decide('127.0.0.1', '203.0.113.9'), 404);
  });

  it('opens to anyone with the token, and only the exact token', () => {
    const token = 'm'.repeat(24);
    assert.equal(decide('203.0.113.9', '203.0.113.9', `Bearer ${token}`, token), 'open');
    assert.equal(decide('203.0.113.9', '203.0.113.9', `Bearer ${token}x`, token), 404);
    assert.equal(decide('203.0.113.9', '203.0.113.9', token, token), 404);
    assert.equal(decide('203.0.113.9', '203.0.113.9', `Bearer ${token}`), 404, 'no METRICS_TOKEN set: no token opens it');
  });
});
