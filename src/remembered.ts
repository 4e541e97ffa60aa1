/**
 * `compute(key)` remembered in `memory`: a value that depends on nothing but its key is computed once.
 * At `bound` entries the memory starts again empty, a bound against keys made up without end (its
 * users' keys are few or repeat: languages, words, statement shapes). An undefined value is remembered
 * too; only a miss pays the second look-up that tells it from an absent key.
 */
export function remembered<K, T>(memory: Map<K, T>, key: K, compute: (key: K) => T, bound: number): T {
  const known = memory.get(key);
  if (known !== undefined || memory.has(key)) return known as T;
  const value = compute(key);
  if (memory.size >= bound) memory.clear();
  memory.set(key, value);
  return value;
}
