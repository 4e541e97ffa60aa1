import type { Express, Router } from 'express';

/** A route the express app serves: its method and full path (express syntax, or a RegExp). */
export interface ServedRoute {
  method: string;
  path: string | RegExp;
}

interface Layer {
  rawPath?: string | RegExp;
  route?: { path: string | RegExp; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every route of the app, found by walking its router stack (sub-routers under their mount paths). */
export function servedRoutes(app: Express): ServedRoute[] {
  return walk((app as Express & { router: Router & { stack: Layer[] } }).router.stack, '');
}

function walk(stack: Layer[], prefix: string): ServedRoute[] {
  const routes: ServedRoute[] = [];
  for (const layer of stack) {
    if (layer.route) {
      const { path } = layer.route;
      for (const method of Object.keys(layer.route.methods)) routes.push({ method, path: typeof path === 'string' ? `${prefix}${path}` : prefix ? new RegExp(`^${escape(prefix)}${path.source.replace(/^\^/, '')}`) : path });
    } else if (layer.handle.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      routes.push(...walk(layer.handle.stack, `${prefix}${mount}`));
    }
  }
  return routes;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether a documented path template (`/a/{id}`) names this served route (`/a/:id`, or a RegExp it matches). */
export function documents(template: string, route: ServedRoute): boolean {
  if (typeof route.path === 'string') return template.replace(/\{(\w+)\}/g, ':$1') === route.path;
  return route.path.test(template);
}
