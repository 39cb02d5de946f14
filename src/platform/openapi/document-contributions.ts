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
