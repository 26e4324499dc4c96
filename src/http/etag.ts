/** Entity tags for optimistic concurrency (RFC 9110 §8.8.3, §13.1.1). */

export function versionEtag(version: number): string {
  return `"${version}"`;
}

function listedTags(header: string): string[] {
  return header.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');
}

/** If-Match uses the strong comparison: a weak tag never matches; "*" matches any current entity. */
export function ifMatchSatisfied(header: string | undefined, current: string): boolean {
  if (header === undefined) return true;
  return listedTags(header).some((tag) => tag === '*' || tag === current);
}

/** If-None-Match uses the weak comparison: W/"1" and "1" are the same entity. */
export function ifNoneMatchHits(header: string | undefined, current: string): boolean {
  if (header === undefined) return false;
  return listedTags(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === current);
}
