import { z } from 'zod';

export const healthy = z.object({ status: z.literal('ok') });

export const ready = z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.literal('ok')) });

export const notReady = z.object({ message: z.string(), status: z.literal('unavailable'), checks: z.record(z.string(), z.string()) });

/** The document itself, loosely: its own validity is checked against the OpenAPI 3.1 schema in the tests. */
export const openApiDocument = z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });
