import type { Transaction } from 'sequelize';
import type { PlanName } from '../../../config/plans';
import { Company, User } from '../../models';
import { announceAccessChange } from './accessChanges';
import { createUser, type NewUser } from './createUser';

export interface NewWorkspace {
  name: string;
  plan?: PlanName;
  portalEnabled?: boolean;
  owner?: Omit<NewUser, 'role'>;
}

/** A workspace and, optionally, its first owner, in one transaction (the caller's, when given). */
export async function createWorkspace(input: NewWorkspace, outer?: Transaction): Promise<{ company: Company; owner?: User }> {
  const create = async (transaction: Transaction) => {
    const company = await Company.create(
      { name: input.name, slug: await uniqueSlug(input.name, transaction), plan: input.plan ?? 'free', portalEnabled: input.portalEnabled ?? false },
      { transaction },
    );
    const owner = input.owner ? await createUser(company, { ...input.owner, role: 'owner' }, transaction) : undefined;
    return { company, owner };
  };
  return outer ? create(outer) : Company.sequelize!.transaction(create);
}

/** Suspending refuses its users' tokens and its widgets, and closes their realtime connections on commit. */
export async function setWorkspaceSuspended(company: Company, suspended: boolean): Promise<Company> {
  return Company.sequelize!.transaction(async (transaction) => {
    await company.update({ suspendedAt: suspended ? (company.suspendedAt ?? new Date()) : null }, { transaction });
    if (suspended) await announceAccessChange({ company: company.id }, transaction);
    return company;
  });
}

async function uniqueSlug(name: string, transaction: Transaction): Promise<string> {
  const base = slugify(name) || 'workspace';
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    if (!(await Company.count({ where: { slug }, transaction }))) return slug;
  }
}

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120);
}
