import { DataSource } from 'typeorm';
import { ENTITIES } from '../../entities';
import { dataSourceOptions } from './data-source-options';

/**
 * Read by TypeORM's own CLI (migration:generate, --check), which migrate.ts starts with DATABASE_URL set to
 * the database it resolved. Not for the app: the app builds its DataSource through Nest.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must be set; run this through `npm run migration:generate`.');

export default new DataSource(dataSourceOptions({ url, entities: ENTITIES, poolSize: 2 }));
