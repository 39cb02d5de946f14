import { FEATURES } from './app.module';
import { entitiesOf } from './platform/database/module-entities';

/**
 * Every TypeORM entity of the service, read from the modules the app imports (each names its own with
 * @OwnsEntities), so the app, the CLI and migrations agree. Importing the modules starts nothing.
 */
export const ENTITIES: Function[] = entitiesOf(FEATURES);
