import type { Company, User } from '../models';

export const presentV1User = (user: User) => ({ id: user.id, name: user.name, email: user.email, role: user.role });

export const presentV1Company = (company: Company) => ({ id: company.id, name: company.name, slug: company.slug, plan: company.plan });
