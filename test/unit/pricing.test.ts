import { strict as assert } from 'node:assert';
import { PRICING } from '../../config/pricing';
import { costMicroCents, priceOf } from '../../src/domain/usage/pricing';

describe('pricing', () => {
  it('matches a model by its exact id or the longest listed prefix', () => {
    assert.deepEqual(priceOf('openai', 'gpt-4o-mini'), PRICING.openai['gpt-4o-mini']);
    assert.deepEqual(priceOf('openai', 'gpt-4o-mini-2024-07-18'), PRICING.openai['gpt-4o-mini']);
    assert.deepEqual(priceOf('openai', 'gpt-4o-2024-08-06'), PRICING.openai['gpt-4o']);
    assert.deepEqual(priceOf('claude', 'claude-3-5-haiku-latest'), PRICING.claude['claude-3-5-haiku']);
  });

  it('charges an unlisted model at its provider\'s default rate, never free', () => {
    assert.deepEqual(priceOf('mistral', 'some-new-model'), PRICING.mistral['*']);
    assert.ok(priceOf('mistral', 'some-new-model').input > 0);
  });

  it('prices OpenRouter models by their vendor\'s list', () => {
    assert.deepEqual(priceOf('openrouter', 'openai/gpt-4o-mini'), PRICING.openai['gpt-4o-mini']);
    assert.deepEqual(priceOf('openrouter', 'anthropic/claude-sonnet-4'), PRICING.claude['claude-sonnet-4']);
    assert.deepEqual(priceOf('openrouter', 'meta-llama/llama-3.3-70b-instruct'), PRICING.openrouter['meta-llama/llama-3.3-70b-instruct']);
    assert.deepEqual(priceOf('openrouter', 'unknown/model'), PRICING.openrouter['*']);
  });

  it('costs in micro-cents: one token at $1 per million is 100', () => {
    // gpt-4o-mini: $0.15 in, $0.60 out per million tokens.
    assert.equal(costMicroCents('openai', 'gpt-4o-mini', 1_000_000, 0), 15_000_000);
    assert.equal(costMicroCents('openai', 'gpt-4o-mini', 1000, 500), 1000 * 15 + 500 * 60);
    assert.equal(costMicroCents('openai', 'extractive', 1000, 500), 0);
  });
});
