/** Entity tags for optimistic concurrency (RFC 9110 §8.8.3, §13.1.1). */

export function versionEtag(version: number): string {
  return `"${version}"`;
}

function listedTags(header: string): string[] {
  return header.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');
}

const VERSION_TAG = /^"(0|[1-9][0-9]*)"$/;

/**
 * The versions an If-Match header lets a write replace, for the write to check under its row lock
 * (versionEtag's tags): undefined when any will do (no header, or "*"). If-Match uses the strong
 * comparison, so a weak tag, like a tag that names no version, matches nothing.
 */
export function ifMatchVersions(header: string | undefined): readonly number[] | undefined {
  if (header === undefined) return undefined;
  const tags = listedTags(header);
  if (tags.includes('*')) return undefined;
  return tags.flatMap((tag) => {
    const version = VERSION_TAG.exec(tag)?.[1];
    return version === undefined ? [] : [Number(version)];
  });
}

/** If-None-Match uses the weak comparison: W/"1" and "1" are the same entity. */
export function ifNoneMatchHits(header: string | undefined, current: string): boolean {
  if (header === undefined) return false;
  return listedTags(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === current);
}
