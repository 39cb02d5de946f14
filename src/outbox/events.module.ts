import { Module } from '@nestjs/common';
import { getSchemaPath, type OpenAPIObject } from '@nestjs/swagger';
import { contributeToDocument, declareApiTag } from '../platform/openapi/document-contributions';
import { ANY_EVENT_SCHEMA_NAME } from './dto/event-feed.response';
import { EVENT_TYPES, eventSchemaOf } from './event-catalog';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { OwnsEntities } from '../platform/database/module-entities';
import { OutboxEvent } from './outbox-event.entity';

/** Any one event, told apart by its `type`: the union of the declared types, for the feed and webhooks. */
function documentAnyEvent(document: OpenAPIObject): void {
  const path = (type: string) => getSchemaPath(eventSchemaOf(type));
  document.components!.schemas![ANY_EVENT_SCHEMA_NAME] = {
    description: 'One event of any type; `type` says which, and so the shape of `data`.',
    oneOf: EVENT_TYPES.map((type) => ({ $ref: path(type) })),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, path(type)])),
    },
  };
}

@OwnsEntities(OutboxEvent)
@Module({
  controllers: [EventsController],
  providers: [EventsRepository, EventsService],
  exports: [EventsService],
})
export class EventsModule {
  constructor() {
    declareApiTag({
      name: 'events',
      description: 'Partner API: your company’s order events, the same ones webhooks deliver.',
      rank: 30,
    });
    contributeToDocument(documentAnyEvent);
  }
}
