/**
 * Drops the entries inserted first until the collection holds at most `max`. Maps and Sets keep
 * insertion order, and the bounded caches here re-insert an entry to make it the newest, so the
 * first entries are the ones to go.
 */
export function dropOldest(collection: Map<unknown, unknown> | Set<unknown>, max: number): void {
  for (const key of collection.keys()) {
    if (collection.size <= max) return;
    collection.delete(key);
  }
}
