import type { WorkspaceRole } from '../memberships/contract.js';

/**
 * The memberships of a user who is in one workspace, nearly everyone, as a principal keeps them:
 * two fields where a Map of one entry takes four times the memory (bench/cache-memory.ts). Read
 * as any ReadonlyMap; iterating makes a Map on the spot, which only requests that list every
 * workspace of the user do.
 */
export class OneMembership implements ReadonlyMap<string, WorkspaceRole> {
  constructor(
    private readonly workspaceId: string,
    private readonly role: WorkspaceRole,
  ) {}

  get size(): number {
    return 1;
  }

  get(workspaceId: string): WorkspaceRole | undefined {
    return workspaceId === this.workspaceId ? this.role : undefined;
  }

  has(workspaceId: string): boolean {
    return workspaceId === this.workspaceId;
  }

  forEach(callback: (role: WorkspaceRole, workspaceId: string, map: ReadonlyMap<string, WorkspaceRole>) => void, thisArg?: unknown): void {
    callback.call(thisArg, this.role, this.workspaceId, this);
  }

  entries(): MapIterator<[string, WorkspaceRole]> {
    return this.#asMap().entries();
  }

  keys(): MapIterator<string> {
    return this.#asMap().keys();
  }

  values(): MapIterator<WorkspaceRole> {
    return this.#asMap().values();
  }

  [Symbol.iterator](): MapIterator<[string, WorkspaceRole]> {
    return this.entries();
  }

  #asMap(): Map<string, WorkspaceRole> {
    return new Map([[this.workspaceId, this.role]]);
  }
}

/** The memberships to keep: a user in one workspace as OneMembership, any other as they are. */
export function compactMemberships(memberships: ReadonlyMap<string, WorkspaceRole>): ReadonlyMap<string, WorkspaceRole> {
  if (memberships.size !== 1) return memberships;
  for (const [workspaceId, role] of memberships) return new OneMembership(workspaceId, role);
  return memberships;
}
