import type { BrandSettings, Company } from '../../models';

export interface Brand {
  name: string;
  powered_by: string;
  logo_url: string;
}

export const DEFAULT_POWERED_BY = 'Parley';
export const DEFAULT_LOGO_PATH = '/brand/logo.svg';

/**
 * The white-label brand a portal shows, and whose `powered_by` the widget shows. Each field the
 * workspace has not set falls back: the workspace's own name, "Parley", and the logo this server
 * hosts. A `powered_by` set empty stays empty: the widget then shows no "powered by" line.
 */
export function brandOf(company: Pick<Company, 'name' | 'brand'>, appUrl: string): Brand {
  const stored: BrandSettings = company.brand ?? {};
  return {
    name: stored.name || company.name,
    powered_by: stored.powered_by ?? DEFAULT_POWERED_BY,
    logo_url: stored.logo_url || `${appUrl}${DEFAULT_LOGO_PATH}`,
  };
}

/** Sets the given fields; an empty name or logo clears it back to its default, an empty `powered_by` hides the line. */
export async function updateBrand(company: Company, changes: BrandSettings): Promise<Company> {
  const brand: BrandSettings = { ...company.brand };
  for (const field of ['name', 'powered_by', 'logo_url'] as const) {
    const value = changes[field];
    if (value === undefined) continue;
    if (value.trim() || field === 'powered_by') brand[field] = value.trim();
    else delete brand[field];
  }
  return company.update({ brand });
}
