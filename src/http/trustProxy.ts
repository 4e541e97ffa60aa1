/** TRUST_PROXY: `true`/`false`, a hop count, or express's list of trusted subnets (default `loopback`). */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}
