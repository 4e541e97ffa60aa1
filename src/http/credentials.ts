import { z } from 'zod';
import { notBlank } from './validate';

/** What every sign-in form sends (portal and agent app); the email is capped at 255 characters. */
export const credentialsBody = z.object({
  email: z.string().max(255).refine(notBlank, 'The email field is required.'),
  password: z.string().refine((value) => value.length > 0, 'The password field is required.'),
});
