import type { Company, User } from '../models';

/** The user shape of v1 `me` and of the operator CLI. */
export const presentV1User = (user: User) => ({ id: user.id, name: user.name, email: user.email, role: user.role });

/** The company shape of v1 `me` and of the operator CLI. */
export const presentV1Company = (company: Company) => ({ id: company.id, name: company.name, slug: company.slug, plan: company.plan });
