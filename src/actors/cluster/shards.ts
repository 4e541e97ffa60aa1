/** Virtual shards: an actor's shard never changes; only the shard's owner does. */
export const SHARD_COUNT = 1024;

/** FNV-1a over UTF-16 code units, then a murmur3 finaliser so nearby strings spread over the whole range. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function shardOf(kind: string, id: string): number {
  return hash32(`${kind}:${id}`) % SHARD_COUNT;
}

/**
 * Rendezvous (highest-random-weight) hashing: every node computes the same owner from the same live
 * member list, with no coordinator, and a node joining or leaving moves only the shards it wins or held.
 */
export function desiredOwner(shard: number, nodes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1;
  for (const node of nodes) {
    const weight = hash32(`${node}#${shard}`);
    if (weight > bestWeight || (weight === bestWeight && best !== undefined && node < best)) {
      best = node;
      bestWeight = weight;
    }
  }
  return best;
}
