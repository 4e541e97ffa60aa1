import { Op, type Transaction } from 'sequelize';
import { planOf } from '../../../config/plans';
import type { RoleName } from '../../../config/roles';
import { Company, User } from '../../models';
import { hashPassword } from '../../security/passwords';
import { validationFailed } from '../../errors';
import { announceAccessChange } from './accessChanges';
import { findUserByEmail } from './findUserByEmail';

export interface NewUser {
  email: string;
  /** The plain password, hashed here; or an already stored hash (test fixtures give many users one password, hashed once). */
  password: string | { hash: string };
  name: string;
  role: RoleName;
}

/** Roles that take one of the plan's agent seats (viewers are read-only and free). */
const SEATED_ROLES: RoleName[] = ['owner', 'admin', 'agent'];

/** A user of a workspace. Email is unique platform-wide (sign-in is by email alone); seats follow the plan. */
export async function createUser(company: Company, input: NewUser, transaction?: Transaction): Promise<User> {
  const email = input.email.trim().toLowerCase();
  if (await findUserByEmail(email, transaction)) throw validationFailed({ email: ['The email has already been taken.'] });
  if (SEATED_ROLES.includes(input.role)) {
    const plan = planOf(company);
    const seats = plan.agentSeats;
    const used = await User.count({ where: { companyId: company.id, role: { [Op.in]: SEATED_ROLES }, suspendedAt: null }, transaction });
    if (used >= seats) {
      throw validationFailed({ role: [`The ${plan.label} plan includes ${seats} agent seat${seats === 1 ? '' : 's'}, all in use.`] });
    }
  }
  const passwordHash = typeof input.password === 'string' ? await hashPassword(input.password) : input.password.hash;
  return User.create({ companyId: company.id, email, name: input.name.trim(), role: input.role, passwordHash }, { transaction });
}

/** Suspending refuses the user's tokens from the next request on and closes their realtime connections on commit. */
export async function setUserSuspended(user: User, suspended: boolean): Promise<User> {
  return User.sequelize!.transaction(async (transaction) => {
    await user.update({ suspendedAt: suspended ? (user.suspendedAt ?? new Date()) : null }, { transaction });
    if (suspended) await announceAccessChange({ user: user.id }, transaction);
    return user;
  });
}
