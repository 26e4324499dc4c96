import type { OperationNode } from 'kysely';

/*
 * What the connections are doing and what each query is, for the metrics (src/metrics/): the
 * database handle's `usage`, kept by the drivers in connect.ts and sqlite-driver.ts.
 */

/** Connections to the database at one moment. */
export interface ConnectionUse {
  /** The most the process opens (PostgreSQL: POOL_SIZE; SQLite: 2, one that writes and one that reads). */
  max: number;
  /** Open and running a caller's queries or transaction. */
  inUse: number;
  /** Open and free. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  /**
   * Seconds connections have been held by callers since the process started, summed over
   * connections (when timed; else 0): its rate over `max` is how busy the connections are, which
   * a sampled count of those in use misses on SQLite, whose queries finish between two samples.
   */
  heldSeconds: number;
}

export interface DatabaseUsage {
  connections(): ConnectionUse;
  /** Whether queries are timed (the database was opened with `timeQueries`). */
  readonly timed: boolean;
  /** Told each query's statement family and time in seconds, when timed; set by whoever reports it. */
  onQueryTime: ((family: StatementFamily, seconds: number) => void) | undefined;
}

/**
 * What a query is, in words of bounded number: its operation, and the table it reads from or
 * writes to as written in the code (never its SQL text or values). Raw SQL (sql`…`) is `raw`.
 */
export interface StatementFamily {
  operation: 'select' | 'insert' | 'update' | 'delete' | 'merge' | 'raw' | 'other';
  table: string;
}


/** The time connections are held by callers, summed; kept only when queries are timed. */
export class ConnectionHolds {
  readonly #since = new WeakMap<object, number>();
  #total = 0;

  constructor(private readonly enabled: boolean) {}

  acquired(connection: object): void {
    if (this.enabled) this.#since.set(connection, performance.now());
  }

  released(connection: object): void {
    if (!this.enabled) return;
    const since = this.#since.get(connection);
    if (since === undefined) return;
    this.#since.delete(connection);
    this.#total += performance.now() - since;
  }

  /** Seconds held by callers so far, over the holds that have ended. */
  get seconds(): number {
    return this.#total / 1000;
  }
}

/** Families by query tree: a prepared query's tree is one object for every run, so it is read once. */
const families = new WeakMap<OperationNode, StatementFamily>();

/** The statement family of a query Kysely compiled (its operation node tree). */
export function statementFamily(node: OperationNode): StatementFamily {
  let family = families.get(node);
  if (family === undefined) {
    family = familyOf(node);
    families.set(node, family);
  }
  return family;
}

function familyOf(node: OperationNode): StatementFamily {
  const fields = node as unknown as Record<string, unknown>;
  switch (node.kind) {
    case 'SelectQueryNode':
      return { operation: 'select', table: tableName((fields.from as { froms?: unknown[] } | undefined)?.froms?.[0]) };
    case 'InsertQueryNode':
      return { operation: 'insert', table: tableName(fields.into) };
    case 'UpdateQueryNode':
      return { operation: 'update', table: tableName(fields.table) };
    case 'DeleteQueryNode':
      return { operation: 'delete', table: tableName((fields.from as { froms?: unknown[] } | undefined)?.froms?.[0]) };
    case 'MergeQueryNode':
      return { operation: 'merge', table: tableName(fields.into) };
    case 'RawNode':
      return { operation: 'raw', table: 'none' };
    default:
      return { operation: 'other', table: 'none' };
  }
}

/** A table's name as the code writes it (under an alias too); anything else (a subquery) is `none`. */
function tableName(node: unknown): string {
  const unaliased = (node as { kind?: string; node?: unknown } | undefined)?.kind === 'AliasNode' ? (node as { node?: unknown }).node : node;
  const table = unaliased as { kind?: string; table?: { identifier?: { name?: unknown } } } | undefined;
  const name = table?.kind === 'TableNode' ? table.table?.identifier?.name : undefined;
  // Names come from the code, never from input; the pattern keeps a label's values plain regardless.
  return typeof name === 'string' && /^[a-z_][a-z0-9_]{0,62}$/.test(name) ? name : 'none';
}
