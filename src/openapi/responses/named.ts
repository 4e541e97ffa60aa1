import { z } from 'zod';

/**
 * Response shapes that get a name in the document (`#/components/schemas/<id>`). Everything built from
 * them refers to them by `$ref`, so a shared shape (branding, a message line) is written once.
 */
export const responseSchemas = z.registry<{ id: string; description?: string }>();

/** Registers a response shape under its component name and hands it back. */
export function named<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  responseSchemas.add(schema, description ? { id, description } : { id });
  return schema;
}
