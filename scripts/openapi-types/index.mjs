// openapi-typescript, resolved from this folder, where its TypeScript 5 peer is installed.
export { astToString, default } from 'openapi-typescript';
