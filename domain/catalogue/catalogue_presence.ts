/**
 * Which workspaces are known, in this process, to have no catalogue: their
 * widget replies skip the catalogue search entirely for a while, so a bot
 * without a linked store pays nothing for recommendations (the search's
 * planning alone is measurable on the embedded database). Only the absence is
 * remembered, briefly: a store linked and synced on another instance is
 * searched here within NO_CATALOGUE_SECONDS; in this process at once.
 */

/** How long an empty catalogue is believed before it is looked at again. */
export const NO_CATALOGUE_SECONDS = 30;
/** Bound on remembered workspaces (the oldest are forgotten first). */
const REMEMBERED = 10_000;

const noCatalogueUntil = new Map<number, number>();

export function knownToHaveNoCatalogue(workspaceId: number, now = Date.now()): boolean {
  const until = noCatalogueUntil.get(workspaceId);
  if (until === undefined) return false;
  if (until > now) return true;
  noCatalogueUntil.delete(workspaceId);
  return false;
}

export function rememberNoCatalogue(workspaceId: number, now = Date.now()): void {
  if (noCatalogueUntil.size >= REMEMBERED) {
    noCatalogueUntil.delete(noCatalogueUntil.keys().next().value!);
  }
  noCatalogueUntil.set(workspaceId, now + NO_CATALOGUE_SECONDS * 1000);
}

/** A catalogue was stored: search it from now on. */
export function forgetNoCatalogue(workspaceId: number): void {
  noCatalogueUntil.delete(workspaceId);
}
