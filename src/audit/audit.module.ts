import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { OwnsEntities } from '../platform/database/module-entities';
import { AuditEvent } from './audit-event.entity';

@OwnsEntities(AuditEvent)
@Module({
  controllers: [AuditController],
  providers: [AuditRepository, AuditService],
  exports: [AuditService],
})
export class AuditModule {}
