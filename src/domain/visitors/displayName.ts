/**
 * How agents see a visitor who has not said who they are: their name, else their email, else
 * `Visitor` and a short, stable tag of their id (the last six letters or digits).
 */
export function visitorDisplayName(visitor: { name: string | null; email: string | null; key: string }): string {
  return visitor.name || visitor.email || `Visitor ${visitor.key.replace(/[^a-z0-9]/gi, '').slice(-6).toUpperCase() || '#'}`;
}
