import { AuditEvent } from '../audit/audit-event.entity';
import { Company } from '../companies/company.entity';
import { ApiToken } from '../tokens/api-token.entity';

/** Every TypeORM entity of the service, listed explicitly so the app, the CLI and migrations agree. */
export const ENTITIES: Function[] = [Company, ApiToken, AuditEvent];
