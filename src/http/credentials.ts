import { z } from 'zod';
import { NOT_BLANK } from './validate';

/** What every sign-in form sends (portal and agent app); the email is capped at 255 characters. */
export const credentialsBody = z.object({
  email: z.string().max(255).regex(NOT_BLANK, 'The email field is required.'),
  password: z.string().min(1, 'The password field is required.'),
});
