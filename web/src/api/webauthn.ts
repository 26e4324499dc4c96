// The browser's WebAuthn answers (@simplewebauthn/browser's JSON types) as the API's bodies take them.

/** The same members, all the way down, as plain object types. */
type Plain<T> = T extends object ? { [Key in keyof T]: Plain<T[Key]> } : T;

/**
 * The credential as the API's schema types it. The value is JSON already; only its type changes:
 * the library declares interfaces, which TypeScript will not match against the open objects
 * (`additionalProperties`) the schema describes, while the same members as plain types it will.
 */
export function asPlainJson<Credential extends object>(credential: Credential): Plain<Credential> {
  return credential as Plain<Credential>;
}
