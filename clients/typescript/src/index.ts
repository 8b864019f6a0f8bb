// memoryd's REST API as a typed client: paths and bodies come from src/schema.d.ts,
// which openapi-typescript generates from docs/openapi.json (npm run generate).
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths };
export type Memory = components["schemas"]["MemoryOut"];
export type ContextOut = components["schemas"]["ContextOut"];
/** One audit log entry (GET /api/v1/audit): a change to a memory, or chats deleted. */
export type AuditEntry = components["schemas"]["AuditOut"];
/** Every error answer: `{ error: { type, message, code } }`. */
export type ErrorOut = components["schemas"]["ErrorOut"];

/** A client for one memoryd server, authenticated with an API key (mdk_...). */
export function memorydClient(baseUrl: string, apiKey: string): Client<paths> {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
}
