/*
 * Two ways to write a query, one for each kind. An ordinary Kysely query (db.selectFrom(...)) is
 * the default: every query is one unless it runs on a hot path (each request of the guard, the
 * sites page and one site, the PUT's locking read and write). Those are a PreparedQuery: the same
 * builder code, built and compiled once and run with named parameters
 * (docs/decisions/storage-prepared-queries.md). A query whose shape varies with its input stays an
 * ordinary one.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { nameStatement } from './named-statements.js';
import type { Database } from './schema.js';

/**
 * Mark where a parameter went in the compiled query; never sent to the database. Mixed case and
 * control characters, so a transformed placeholder (lower-cased, trimmed, sliced) is not mistaken
 * for the parameter and fails the compile-time check instead.
 */
const PLACEHOLDER = '\u0000Siteward-Parameter:';
const PLACEHOLDER_END = '\u0001';

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** For each compiled parameter, the name of the parameter that fills it, or null for a constant. */
  parameterAt: Array<string | null>;
}

/**
 * A query of fixed shape that Kysely builds and compiles once per database, then runs with each
 * call's named parameters bound as values. Building and compiling a query tree took longer than
 * SQLite took to answer the hot queries; the SQL and its dialect
 * differences still come from the same Kysely builder code, so SQLite and PostgreSQL share it.
 *
 * `build` is called once, with a stand-in for the parameters: it must hand each parameter it reads
 * to Kysely as a value (a where, set or limit operand), never branch on one or transform it, since
 * the shape it returns is reused for every call. A query whose shape varies is two prepared
 * queries, or an ordinary Kysely query. Compiling checks that every parameter read became exactly
 * a bound parameter, and that none reached the SQL text.
 *
 * Values are bound as parameters on every call, as Kysely itself binds them: nothing of one call's
 * values reaches the SQL text or another call. On PostgreSQL the query runs as a named statement,
 * parsed and planned once per connection.
 */
export class PreparedQuery<Params extends object, Row> {
  // Keyed by the dialect adapter, which a Kysely instance shares with its transactions (its SQL
  // text differs by dialect): a query compiled on the database serves transactions on it too.
  readonly #compiled = new WeakMap<object, Compiled<Row>>();

  constructor(private readonly build: (db: Kysely<Database>, params: Params) => Compilable<Row>) {}

  async execute(db: Kysely<Database>, params: Params): Promise<Row[]> {
    const compiled = this.#compile(db);
    const values = params as Record<string, unknown>;
    const parameters = compiled.query.parameters.map((constant, index) => {
      const name = compiled.parameterAt[index] ?? null;
      return name === null ? constant : values[name];
    });
    const result = await db.executeQuery<Row>({ ...compiled.query, parameters });
    return result.rows;
  }

  async executeTakeFirst(db: Kysely<Database>, params: Params): Promise<Row | undefined> {
    return (await this.execute(db, params))[0];
  }

  #compile(db: Kysely<Database>): Compiled<Row> {
    // The dialect adapter is what a database and its transactions have in common. getExecutor is
    // marked internal in Kysely's types: an upgrade that drops it fails to compile here, visibly.
    const key = db.getExecutor().adapter;
    const cached = this.#compiled.get(key);
    if (cached !== undefined) return cached;
    const read = new Set<string>();
    const standIn = new Proxy(
      {},
      {
        get(_target, name) {
          if (typeof name !== 'string') return undefined;
          read.add(name);
          return `${PLACEHOLDER}${name}${PLACEHOLDER_END}`;
        },
      },
    );
    // The stand-in answers every parameter with its placeholder text; Kysely only carries it as a value.
    const query = this.build(db, standIn as Params).compile();
    const parameterAt = query.parameters.map((parameter) =>
      typeof parameter === 'string' && parameter.startsWith(PLACEHOLDER) && parameter.endsWith(PLACEHOLDER_END)
        ? parameter.slice(PLACEHOLDER.length, -PLACEHOLDER_END.length)
        : null,
    );
    const bound = new Set(parameterAt);
    const unbound = [...read].some((name) => !bound.has(name));
    const mangled = query.parameters.some((parameter, index) => typeof parameter === 'string' && parameter.includes(PLACEHOLDER) && parameterAt[index] === null);
    if (unbound || mangled || query.sql.includes(PLACEHOLDER)) {
      throw new Error(`a prepared query must pass each parameter to Kysely as a value: ${query.sql}`);
    }
    // PostgreSQL then parses and plans it once per connection (named-statements.ts); SQLite's
    // connection keeps its statements prepared by text already.
    nameStatement(query.sql);
    const compiled = { query, parameterAt };
    this.#compiled.set(key, compiled);
    return compiled;
  }
}
