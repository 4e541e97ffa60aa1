// The import rules of src/, checked in `npm test` (test/unit/importGraph.test.ts) and by hand with
// `npx depcruise src`. docs/architecture.md "Layers" explains them; keep the two in step.
//
// Layers, outermost first; a module imports its own layer or the ones below it, never above:
//
//   entry       src/server.ts, src/web.ts, src/app.ts, src/cli.ts, src/cli/, src/boot/ (opens and wires everything)
//   routes      src/surfaces/ (one folder per audience), src/openapi/ (describes them), src/ops/ (health, /metrics)
//   http        src/http/: middleware and request plumbing the routes share
//   actors      src/actors/, src/realtime/, src/presenters/ (shapes of responses and events)
//   domain      src/domain/, src/ai/, src/jobs/ (jobs know no domain: each domain module adds its own kinds)
//   storage     src/models/, src/db/
//   foundation  config/, src/context.ts (types only), src/errors.ts, src/logger.ts, src/redis.ts,
//               src/readiness.ts, src/limits/, src/security/, src/net/, src/version.ts
//
// Type-only imports count: a circle of types is still a circle a reader has to untangle.

/** Modules that may use src/http/: the routes, the entry points, and http itself. */
const MAY_USE_HTTP = '^src/(surfaces|openapi|ops|http|cli|boot)/|^src/(app|web|server|cli)\\.ts$';

/** Sequelize models name each other's types both ways for their associations (Chatbot.conversations, Conversation.chatbot). */
const MODEL_FILE = '^src/models/[^/]+\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles among src/ modules. Only model classes may name each other (type-only association fields).',
      severity: 'error',
      from: {},
      to: { circular: true, via: { pathNot: MODEL_FILE } },
    },
    {
      name: 'no-circular-values-in-models',
      comment: 'Between models only type-only imports may go both ways; a value import circle would load a class before it is defined.',
      severity: 'error',
      from: { path: MODEL_FILE },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'http-is-for-routes',
      comment: 'src/http/ is request plumbing: only routes, ops servers and entry points use it. Move what a lower layer needs down (as src/limits/ was).',
      severity: 'error',
      from: { pathNot: MAY_USE_HTTP },
      to: { path: '^src/http/' },
    },
    {
      name: 'surfaces-are-outermost',
      comment: 'Routes are mounted by src/app.ts and described by src/openapi/; nothing else reaches into them.',
      severity: 'error',
      from: { pathNot: '^src/(surfaces|openapi)/|^src/app\\.ts$' },
      to: { path: '^src/surfaces/' },
    },
    {
      name: 'boot-is-for-entry-points',
      comment: 'src/boot/ opens connections and wires every job kind; only entry points start a process.',
      severity: 'error',
      from: { pathNot: '^src/boot/|^src/(web|cli|server)\\.ts$' },
      to: { path: '^src/boot/' },
    },
    {
      name: 'domain-below-actors',
      comment: 'Domain operations, AI and jobs are called by actors and routes, never the other way round.',
      severity: 'error',
      from: { path: '^src/(domain|ai|jobs)/' },
      to: { path: '^src/(actors|realtime|presenters|surfaces|openapi|http|cli|boot)/' },
    },
    {
      name: 'jobs-know-no-domain',
      comment: 'Each domain module declares its job payloads (declaration merging on JobPayloads), kind and processor; src/boot/jobs.ts lists them.',
      severity: 'error',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(domain|ai)/' },
    },
    {
      name: 'storage-below-domain',
      comment: 'Models and the database layer know nothing of what uses them (the process context included).',
      severity: 'error',
      from: { path: '^src/(models|db)/' },
      to: { path: '^src/(domain|ai|jobs|actors|realtime|presenters|surfaces|openapi|http|ops|cli|boot)/|^src/context\\.ts$' },
    },
  ],
  options: {
    includeOnly: '^src/',
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
