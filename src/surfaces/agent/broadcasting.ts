import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { forbidden } from '../../errors';
import { authOf } from '../../http/authenticate';
import { parse } from '../../http/validate';
import { mayJoin } from '../../realtime/channels';
import { ChannelSigner } from '../../realtime/signature';

export const authBody = z.object({
  socket_id: z.string().min(1).max(100),
  channel_name: z.string().min(1).max(200),
});

/** POST /broadcasting/auth: signs `socket_id:channel_name` for a channel the caller may join (docs/api.md "Realtime"). */
export function broadcastingRoutes(ctx: AppContext): Router {
  const signer = new ChannelSigner(ctx.config.appKey);
  return Router().post('/broadcasting/auth', async (req, res) => {
    const body = parse(authBody, req.body);
    const { user } = authOf(req);
    if (!(await mayJoin({ userId: user.id, companyId: user.companyId }, body.channel_name))) {
      throw forbidden('You are not allowed to join this channel.');
    }
    res.json({ auth: signer.sign(body.socket_id, body.channel_name) });
  });
}
