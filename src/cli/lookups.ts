import { Company, User } from '../models';
import { notFound } from '../errors';

/** The workspace a `--company ID` flag names; "Workspace not found." otherwise. */
export async function findWorkspace(id: number): Promise<Company> {
  const company = await Company.findByPk(id);
  if (!company) throw notFound('Workspace');
  return company;
}

/** The user a `--user ID` flag names; "User not found." otherwise. */
export async function findUser(id: number): Promise<User> {
  const user = await User.findByPk(id);
  if (!user) throw notFound('User');
  return user;
}
