import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import type { Environment } from '../config/environment';
import { formatApiDateTime, parseApiDateTime } from '../../kernel/datetime';
import { type Credentials, DeviceCredentials } from './device-credentials';
import { type Page, type PageQuery, toPage } from '../../kernel/pagination';
import { publicBaseUrl } from '../http/public-url';

/** What responses need from configuration: the service time zone, the public base URL, the credentials key. */
@Injectable()
export class ApiFormats {
  readonly timeZone: string;
  private readonly baseUrl: string | undefined;

  constructor(
    config: ConfigService<Environment, true>,
    private readonly credentials: DeviceCredentials,
  ) {
    this.timeZone = config.get('APP_TIMEZONE', { infer: true });
    this.baseUrl = config.get('PUBLIC_BASE_URL', { infer: true });
  }

  dateTime(value: Date): string;
  dateTime(value: Date | null | undefined): string | null;
  dateTime(value: Date | null | undefined): string | null {
    return formatApiDateTime(value, this.timeZone);
  }

  /** An order's device login and password, stored sealed, as the partner submitted them. */
  deviceCredentials(stored: Credentials): Credentials {
    return this.credentials.open(stored);
  }

  parseDateTime(value: string): Date | null {
    return parseApiDateTime(value, this.timeZone);
  }

  page<T>(rows: T[], query: PageQuery, request: Request): Page<T> {
    return toPage(rows, query, request, publicBaseUrl(request, this.baseUrl));
  }
}
