/**
 * The architecture of src/, checked by `npm run lint:deps` (dependency-cruiser) in CI; docs/architecture.md
 * explains it and test/architecture.spec.ts shows each rule refuses what it should. Floors, from the bottom: a
 * folder may import any folder of a lower floor, never a higher floor and never another folder of its own
 * floor, so no cycle between folders can form. The files at the root of src/ (main.ts, app.module.ts,
 * entities.ts) are the composition root above every floor.
 */
const NEW_MODULE = '*';

/** `NEW_MODULE` is where a folder not named here stands: above every feature, below the CLI and the demo. */
const FLOORS = [
  ['kernel'],
  ['platform'],
  ['audit'],
  ['companies'],
  ['tokens', 'products'],
  ['rate-limit'],
  ['auth', 'idempotency', 'outbox'],
  ['webhooks', 'orders'],
  ['comments'],
  [NEW_MODULE],
  ['cli', 'demo', 'types'],
];

const named = FLOORS.flat().filter((name) => name !== NEW_MODULE);
/** A folder of src/ not named in FLOORS (a module added since): it needs no line here. */
const unnamed = `(?!(?:${named.join('|')})/)[^/]+`;
const folder = (name) => (name === NEW_MODULE ? `^src/(${unnamed})/` : `^src/${name}/`);

/**
 * A folder may import its own folder and the folders of the floors below it, nothing else of src/ (the root
 * files are not in a folder: root-is-the-top guards them).
 */
const floorRules = FLOORS.flatMap((floor, level) =>
  floor.map((name) => {
    const below = FLOORS.slice(0, level).flat();
    return {
      name: name === NEW_MODULE ? 'floor-new-module' : `floor-${name}`,
      comment:
        name === NEW_MODULE
          ? 'A module not named in FLOORS stands above every feature: it may import only its own folder and the floors below'
          : `${name} may import only its own folder and the floors below it`,
      severity: 'error',
      from: { path: folder(name) },
      to: {
        path: '^src/[^/]+/',
        pathNot: [name === NEW_MODULE ? '^src/$1/' : folder(name), ...below.map(folder)],
      },
    };
  }),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle between modules',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'root-is-the-top',
      comment:
        'Nothing imports the composition root (main.ts, app.module.ts, entities.ts) but the entry points of the ' +
        'CLI and of the migration commands, which map every entity',
      severity: 'error',
      from: {
        path: '^src/.+/',
        pathNot: '^src/(cli/main|platform/database/(migrate|cli-data-source))\\.ts$',
      },
      to: { path: '^src/(main|app\\.module|entities)\\.ts$' },
    },
    ...floorRules,
    {
      name: 'no-foreign-repository',
      comment: 'A module reaches another through its services, never its repositories',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '\\.repository\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'no-foreign-entity',
      comment:
        "A module reaches another through its services, never its entities (the root's entities.ts lists them all)",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '\\.entit(y|ies)\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'domain-stays-pure',
      comment:
        "A module's domain/ (its rules and the shapes it declares) imports nothing of application/, persistence/ " +
        'or http/: the use cases, the SQL and the request DTOs build on the domain, never the other way round',
      severity: 'error',
      from: { path: '^src/[^/]+/domain/' },
      to: { path: '^src/[^/]+/(application|persistence|http)/' },
    },
    {
      name: 'controllers-stay-thin',
      comment:
        'A controller imports services, DTOs, errors, decorators, the kernel, the HTTP platform and its own ' +
        "module's http/ helpers (what writes to the response) only",
      severity: 'error',
      from: { path: '^src/([^/]+)/.*\\.controller\\.ts$' },
      to: {
        path: '^src/',
        pathNot: [
          '\\.service\\.ts$',
          '\\.errors\\.ts$',
          '/dto/',
          '\\.decorators?\\.ts$',
          '\\.interceptor\\.ts$',
          '\\.health\\.ts$',
          '\\.pipe\\.ts$',
          '^src/kernel/',
          '^src/platform/(http|openapi|formats)/',
          '^src/$1/http/',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
