import type { DynamicModule, ForwardReference, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';

const OWNED_ENTITIES = Symbol('owned entities');

/** Beside @Module: the entities (tables) the module owns, the only ones it writes. */
export const OwnsEntities =
  (...entities: Function[]): ClassDecorator =>
  (module) =>
    Reflect.defineMetadata(OWNED_ENTITIES, entities, module);

type ModuleRef = Type | DynamicModule | Promise<DynamicModule> | ForwardReference;

/** The entities (tables) a module names with @OwnsEntities. */
export const ownedEntitiesOf = (module: Type): Function[] =>
  (Reflect.getMetadata(OWNED_ENTITIES, module) as Function[] | undefined) ?? [];

/** `modules` and every module they import, each once, a module after the modules it imports. */
export function modulesOf(modules: ModuleRef[]): Type[] {
  const found = new Set<Type>();
  const seen = new Set<unknown>();
  const visit = (ref: ModuleRef): void => {
    if (seen.has(ref)) return;
    seen.add(ref);
    if (ref instanceof Promise) throw new Error('modulesOf: an asynchronous module cannot be read');
    const wrapped = ref as Partial<ForwardReference<() => Type>> & Partial<DynamicModule>;
    const module = wrapped.forwardRef?.() ?? wrapped.module ?? (ref as Type);
    const imports: ModuleRef[] = [
      ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) as ModuleRef[] | undefined) ?? []),
      ...(wrapped.imports ?? []),
    ];
    imports.forEach(visit);
    found.add(module);
  };
  modules.forEach(visit);
  return [...found];
}

/**
 * The entities of `modules` and of every module they import, each once, modules in import order: the list a
 * DataSource maps, read from the modules' own declarations rather than kept by hand.
 */
export const entitiesOf = (modules: ModuleRef[]): Function[] => [
  ...new Set(modulesOf(modules).flatMap(ownedEntitiesOf)),
];
