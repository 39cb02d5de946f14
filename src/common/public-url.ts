import type { Request } from 'express';

/** The base URL clients reach us by: PUBLIC_BASE_URL when configured, else what the request shows. */
export function publicBaseUrl(request: Request, configured: string | undefined): string {
  return configured ?? `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}

export const DOCS_PATH = '/api/docs';
