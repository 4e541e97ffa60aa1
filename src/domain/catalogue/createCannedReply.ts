import { CannedReply, User } from '../../models';
import { validationFailed } from '../../errors';

/** A canned reply: shared with the whole workspace when no user is given, else that agent's own. */
export async function createCannedReply(
  companyId: number,
  input: { title: string; shortcut: string; body: string; userId?: number },
): Promise<CannedReply> {
  if (input.userId !== undefined && !(await User.count({ where: { id: input.userId, companyId } }))) {
    throw validationFailed({ user: ['The user does not belong to this workspace.'] });
  }
  return CannedReply.create({ companyId, userId: input.userId ?? null, title: input.title, shortcut: input.shortcut, body: input.body });
}
