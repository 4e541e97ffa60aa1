import { z } from 'zod';
import { forbidden } from '../../errors';
import { authOf } from '../../http/authenticate';
import { mayJoin } from '../../realtime/channels';
import { ChannelSigner } from '../../realtime/signature';
import { endpoint } from '../endpoint';

export const authBody = z.object({
  socket_id: z.string().min(1).max(100),
  channel_name: z.string().min(1).max(200),
});

/** One signer per APP_KEY: deriving its key is work a request need not repeat. */
const signers = new WeakMap<Buffer, ChannelSigner>();
function signerFor(appKey: Buffer): ChannelSigner {
  let signer = signers.get(appKey);
  if (!signer) signers.set(appKey, (signer = new ChannelSigner(appKey)));
  return signer;
}

/** POST /broadcasting/auth: signs `socket_id:channel_name` for a channel the caller may join (docs/api.md "Realtime"). */
export const broadcastingEndpoints = [
  endpoint({
    surface: 'agent',
    auth: 'agent',
    method: 'post',
    path: '/api/agent/broadcasting/auth',
    summary: 'Sign a realtime channel subscription for this socket',
    description: 'Channels: `private-company.<id>`, `private-user.<id>`, `private-conversation.<uuid>`. See docs/api.md "Realtime".',
    body: { schema: authBody, examples: [{ socket_id: 'Vx3Jk9aPq0FdAAAB', channel_name: 'private-company.1' }] },
    responses: { 200: { description: '`<key>:<hex signature>`.', json: z.object({ auth: z.string() }) }, 403: 'The token holder may not join that channel.' },
    handler: async ({ ctx, body: parseBody }, req, res) => {
      const body = parseBody();
      const { user } = authOf(req);
      if (!(await mayJoin({ userId: user.id, companyId: user.companyId }, body.channel_name))) {
        throw forbidden('You are not allowed to join this channel.');
      }
      res.json({ auth: signerFor(ctx.config.appKey).sign(body.socket_id, body.channel_name) });
    },
  }),
];
