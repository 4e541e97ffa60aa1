/** Roles and the abilities each one holds (docs/api.md "Authentication"). */
export const ABILITIES = ['manage-workspace', 'manage-chatbots', 'manage-content', 'handle-conversations'] as const;
export type RoleAbility = (typeof ABILITIES)[number];

export const ROLES = {
  owner: { label: 'Owner', abilities: ['manage-workspace', 'manage-chatbots', 'manage-content', 'handle-conversations'] },
  admin: { label: 'Admin', abilities: ['manage-workspace', 'manage-chatbots', 'manage-content', 'handle-conversations'] },
  agent: { label: 'Agent', abilities: ['handle-conversations'] },
  viewer: { label: 'Viewer', abilities: [] },
} as const satisfies Record<string, { label: string; abilities: readonly RoleAbility[] }>;

export type RoleName = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as [RoleName, ...RoleName[]];

export function roleCan(role: RoleName, ability: RoleAbility): boolean {
  return (ROLES[role].abilities as readonly RoleAbility[]).includes(ability);
}

/** Token abilities: each token opens exactly one surface. */
export const TOKEN_ABILITIES = ['api', 'portal', 'agent'] as const;
export type TokenAbility = (typeof TOKEN_ABILITIES)[number];
