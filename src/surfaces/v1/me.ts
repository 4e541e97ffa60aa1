import { z } from 'zod';
import { authOf } from '../../http/authenticate';
import { v1Company, v1User } from '../../openapi/responses/accounts';
import { presentV1Company, presentV1User } from '../../presenters/account';
import { endpoint } from '../endpoint';

export const meEndpoints = [
  endpoint({
    surface: 'v1',
    auth: 'api',
    method: 'get',
    path: '/api/v1/me',
    summary: 'The token holder and their workspace',
    responses: { 200: { description: 'The user and company.', json: z.object({ user: v1User, company: v1Company }) } },
    handler: (_input, req, res) => {
      const { user, company } = authOf(req);
      res.json({ user: presentV1User(user), company: presentV1Company(company) });
    },
  }),
];
