import type { OpenAPIObject } from '@nestjs/swagger';

/** What a module adds to the OpenAPI document that its decorators cannot say: a named union, an extension. */
export type DocumentContribution = (document: OpenAPIObject) => void;

const contributions = new Set<DocumentContribution>();

/** Called by a module as Nest builds it; one contribution counts once, however many apps a process builds. */
export function contributeToDocument(contribution: DocumentContribution): void {
  contributions.add(contribution);
}

export function applyDocumentContributions(document: OpenAPIObject): void {
  for (const contribution of contributions) contribution(document);
}

/** A tag of the document: a module declares the ones its controllers use (@ApiTags). */
export interface ApiTag {
  name: string;
  description: string;
  /** Where the document lists it, lowest first: the order a partner reads the API in. */
  rank: number;
}

const tags = new Map<string, ApiTag>();

export function declareApiTag(tag: ApiTag): void {
  tags.set(tag.name, tag);
}

export const declaredApiTags = (): ApiTag[] => [...tags.values()].sort((a, b) => a.rank - b.rank);
