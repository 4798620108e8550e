/** The gateway's public HTTP API: route table, request and response schemas, the typed caller, OpenAPI. */
export * from './api-caller';
export * from './answers';
export * from './audit';
export * from './api-routes';
export * from './bodies';
export * from './openapi';
export * from './permission-bodies';
export * from './permission-rules';
export * from './responses';
export * from './session-bodies';
export * from './sign-in';
export * from './user-bodies';
export * from './settings';
export * from './weft-api';
