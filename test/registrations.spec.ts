import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PLACEMENT_FIELDS } from '../src/orders/domain/order-fields';
import { fromDist } from './harness/app';

/**
 * What the compiler cannot see and the service would not say: a module, an entity or a placement field that is
 * declared but never registered. Each would be silently left out (routes that 404, a table no DataSource maps, a
 * field the validation pipe drops), so each fails here, read from the compiled service (dist/): no app, no
 * database.
 */

const SRC = join(__dirname, '..', 'src');

/** The source files that hold `marker` (a decorator's call), as paths of dist/ without `.js`. */
function filesDeclaring(marker: string, dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesDeclaring(marker, path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.spec.ts')) return [];
    return readFileSync(path, 'utf8').includes(marker) ? [relative(SRC, path).replace(/\.ts$/, '')] : [];
  });
}

/** The classes a compiled file exports. */
const classesOf = (path: string): Function[] =>
  Object.values(fromDist<Record<string, unknown>>(path)).filter(
    (value): value is Function => typeof value === 'function' && /^class\b/.test(value.toString()),
  );

/** The `Reflect` of the realm dist/ runs in (Node's own, not jest's sandbox): where its decorators wrote. */
const distReflect = (): typeof Reflect =>
  (globalThis.nativeRequire('node:vm') as typeof import('node:vm')).runInThisContext(
    'Reflect',
  ) as typeof Reflect;

const names = (classes: Iterable<Function>) => [...classes].map((type) => type.name).sort();

describe('registrations', () => {
  beforeAll(() => void globalThis.nativeRequire('reflect-metadata'));

  it('reaches every module that has controllers or entities from the composition root (FEATURES)', () => {
    const { FEATURES } = fromDist<typeof import('../src/app.module')>('app.module');
    const { modulesOf, ownedEntitiesOf } = fromDist<
      typeof import('../src/platform/database/module-entities')
    >('platform/database/module-entities');
    const reachable = new Set<Function>(modulesOf(FEATURES));
    const serving = filesDeclaring('@Module(')
      .flatMap(classesOf)
      .filter(
        (module) =>
          ((distReflect().getMetadata('controllers', module) as unknown[] | undefined) ?? []).length > 0 ||
          ownedEntitiesOf(module as never).length > 0,
      );
    expect(serving.length).toBeGreaterThan(10);
    expect(names(serving.filter((module) => !reachable.has(module)))).toEqual([]);
  });

  it('maps every entity: each is named by its module (@OwnsEntities), so ENTITIES has it', () => {
    const { ENTITIES } = fromDist<typeof import('../src/entities')>('entities');
    const entities = filesDeclaring('@Entity(').flatMap(classesOf);
    const { getMetadataArgsStorage } = globalThis.nativeRequire('typeorm') as typeof import('typeorm');
    const tables = new Set(getMetadataArgsStorage().tables.map((table) => table.target));
    expect(entities.length).toBeGreaterThan(10);
    expect(names(entities.filter((entity) => tables.has(entity) && !ENTITIES.includes(entity)))).toEqual([]);
  });

  describe('the placement fields', () => {
    const { PlaceOrderDto } = fromDist<typeof import('../src/orders/http/dto/place-order.dto')>(
      'orders/http/dto/place-order.dto',
    );

    it('are the properties of PlaceOrderDto, as its OpenAPI schema lists them', () => {
      const plugin = (
        PlaceOrderDto as unknown as { _OPENAPI_METADATA_FACTORY(): Record<string, unknown> }
      )._OPENAPI_METADATA_FACTORY();
      const decorated =
        (distReflect().getMetadata('swagger/apiModelPropertiesArray', PlaceOrderDto.prototype) as
          string[] | undefined) ?? [];
      const properties = new Set([...Object.keys(plugin), ...decorated.map((name) => name.slice(1))]);
      expect([...properties].sort()).toEqual([...PLACEMENT_FIELDS].sort());
    });

    it('each have a validation rule (the validation pipe drops a property that has none)', () => {
      const { getMetadataStorage } = globalThis.nativeRequire(
        'class-validator',
      ) as typeof import('class-validator');
      const validated = new Set(
        getMetadataStorage()
          .getTargetValidationMetadatas(PlaceOrderDto, '', true, false)
          .map((metadata) => metadata.propertyName),
      );
      expect([...validated].sort()).toEqual([...PLACEMENT_FIELDS].sort());
    });
  });
});
