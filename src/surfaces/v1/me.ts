import { Router } from 'express';
import { authOf } from '../../http/authenticate';
import { presentV1Company, presentV1User } from '../../presenters/account';

export function meRoutes(): Router {
  return Router().get('/me', (req, res) => {
    const { user, company } = authOf(req);
    res.json({ user: presentV1User(user), company: presentV1Company(company) });
  });
}
