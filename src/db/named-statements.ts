import type pg from 'pg';

/**
 * PostgreSQL parses and plans an unnamed statement on every run, and a named one once per
 * connection. Kysely hands node-postgres only a query's text and values, so the service's
 * fixed-shape queries (PreparedQuery) register their text here, and the pool's clients run a
 * registered text as a statement of that name. Other texts (queries whose shape varies, such as an
 * IN list) stay unnamed: a connection keeps every statement it was asked to name.
 */
const names = new Map<string, string>();

/**
 * Names are suffixed with a generation, moved on when the server refuses a statement because a
 * schema change altered its result's columns (another server's migration): the next run of each
 * then prepares it afresh under a new name instead of failing again on every connection.
 */
let generation = 0;

/** Runs `sql`, a query of fixed shape with bound parameters, as a named statement from now on. */
export function nameStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `siteward_${names.size + 1}`);
}

/**
 * The server's refusal of a prepared statement whose result columns a schema change altered
 * ("cached plan must not change result type"). Recognised by the routine that raises it, which
 * unlike the message is not translated; feature_not_supported alone covers unrelated errors.
 */
function isStalePlan(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, routine } = error as { code?: unknown; routine?: unknown };
  return code === '0A000' && routine === 'RevalidateCachedQuery';
}

/** node-postgres's client, running registered texts as named statements; for the pool's `Client` option. */
export function namedStatementClient(Client: typeof pg.Client): typeof pg.Client {
  return class NamedStatementClient extends Client {
    // pg's overloads are many; only (text, values) with no callback changes, the call Kysely makes.
    // Typed `never`, which each overload's result type accepts, so the override stands for all.
    override query(...args: unknown[]): never {
      const [text, values, callback] = args;
      const name = typeof text === 'string' && (values === undefined || Array.isArray(values)) && callback === undefined ? names.get(text) : undefined;
      if (name === undefined) return (super.query as (...rest: unknown[]) => never)(...args);
      return this.#runNamed(name, text as string, values as unknown[] | undefined) as never;
    }

    async #runNamed(name: string, text: string, values: unknown[] | undefined): Promise<pg.QueryResult> {
      // Outside a transaction a refused statement changed nothing, so it may run again at once;
      // inside one the refusal has aborted the transaction, and the caller's error stands.
      const inTransaction = this.getTransactionStatus() !== 'I';
      for (let attempt = 1; ; attempt++) {
        const current = generation;
        try {
          return await super.query({ name: `${name}_${current}`, text, values });
        } catch (error) {
          if (!isStalePlan(error)) throw error;
          if (generation === current) generation += 1;
          if (inTransaction || attempt > 1) throw error;
        }
      }
    }
  };
}
