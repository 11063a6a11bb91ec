// Builds the OpenAPI 3.1 document of /v1 from the endpoint table (shared/src/api/V1Endpoints.ts) and the Effect schemas the gateway decodes and answers with.
import { type ApiErrorCode, apiErrorCodes, errorCatalogue } from "@mds/shared/api/ErrorCodes"
import { envelope, errorEnvelope } from "@mds/shared/api/Responses"
import { JsonSchema, type Schema, SchemaRepresentation } from "effect"
import type { Endpoint } from "@mds/shared/api/Endpoint"
import { type OperationId, v1Endpoints } from "@mds/shared/api/V1Endpoints"

type Json = Record<string, unknown>

const KEY_ERRORS: ReadonlyArray<ApiErrorCode> = ["missing_api_key", "invalid_api_key", "revoked_api_key", "rate_limit_exceeded"]
const BODY_ERRORS: ReadonlyArray<ApiErrorCode> = ["invalid_json", "payload_too_large", "unsupported_media_type"]

/** Every code an operation can answer with: its own plus those of its access, its method and every route. */
export const operationErrors = (operation: Endpoint): ReadonlyArray<ApiErrorCode> => {
  const codes = new Set<ApiErrorCode>(operation.errors)
  if (operation.access._tag === "Keyed") {
    for (const code of KEY_ERRORS) codes.add(code)
    if (operation.access.scope !== null) codes.add("insufficient_scope")
  }
  if (operation.method === "POST") for (const code of BODY_ERRORS) codes.add(code)
  // A malformed path (broken percent-encoding) cannot be routed: any operation's URL can answer not_found.
  codes.add("not_found")
  // Oversized headers are refused before routing too (ClientErrors.ts).
  codes.add("headers_too_large")
  codes.add("internal_error")
  return apiErrorCodes.filter((code) => codes.has(code))
}

const byStatus = (codes: ReadonlyArray<ApiErrorCode>): ReadonlyMap<number, ReadonlyArray<ApiErrorCode>> => {
  const groups = new Map<number, Array<ApiErrorCode>>()
  for (const code of codes) {
    const status = errorCatalogue[code].status
    groups.set(status, [...(groups.get(status) ?? []), code])
  }
  return new Map([...groups].sort(([a], [b]) => a - b))
}

/** `/v1/jobs/:jobId` -> `/v1/jobs/{jobId}`; the file route's wildcard is the `key` parameter. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\*$/, "{key}")

const REQUEST_ID_HEADER = {
  "X-Request-Id": { description: "Request id (req_ + 24 hex), also in error bodies.", schema: { type: "string" } }
}

const RETRY_AFTER_HEADER = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "string", pattern: "^[0-9]+$" } }
}

const describeCodes = (codes: ReadonlyArray<ApiErrorCode>) =>
  codes.map((code) => `\`${code}\`: ${errorCatalogue[code].description}`).join("\n\n")

/** Collects the Effect schemas to compile in one pass (so named schemas become shared components). */
class SchemaSlots {
  readonly schemas: Array<Schema.Top> = []
  readonly slots: Array<Json> = []
  add(schema: Schema.Top): Json {
    const slot: Json = {}
    this.schemas.push(schema)
    this.slots.push(slot)
    return slot
  }
  compile(): Json {
    const [first, ...rest] = this.schemas.map((schema) => schema.ast)
    if (first === undefined) return {}
    const representations = SchemaRepresentation.toRepresentations([first, ...rest])
    const compiled = JsonSchema.toMultiDocumentOpenApi3_1(SchemaRepresentation.toJsonSchemaMultiDocument(representations))
    compiled.schemas.forEach((schema, index) => Object.assign(this.slots[index] ?? {}, schema))
    return compiled.definitions
  }
}

const successContent = (operation: Endpoint, slots: SchemaSlots): Json | undefined => {
  const data = operation.success.data
  switch (data) {
    case "binary":
      return { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } }
    case "html":
      return { "text/html": { schema: { type: "string" } } }
    case "events":
      return { "text/event-stream": { schema: { type: "string" } } }
    case "json":
      return { "application/json": { schema: { type: "object" } } }
    default:
      return { "application/json": { schema: slots.add(envelope(data)) } }
  }
}

const operationObject = (operationId: string, operation: Endpoint, slots: SchemaSlots): Json => {
  const headers = Object.fromEntries(
    Object.entries(operation.success.headers ?? {}).map(([name, value]) => [
      name,
      { description: `Always \`${value}\`.`, schema: { type: "string", const: value } }
    ])
  )
  const responses: Json = {
    [String(operation.success.status)]: {
      description: operation.success.description,
      headers: { ...REQUEST_ID_HEADER, ...headers },
      content: successContent(operation, slots)
    }
  }
  for (const alternative of operation.alternatives ?? []) {
    responses[String(alternative.status)] = {
      description: alternative.description,
      headers: REQUEST_ID_HEADER,
      content: { "application/json": { schema: slots.add(envelope(alternative.data)) } }
    }
  }
  for (const [status, codes] of byStatus(operationErrors(operation))) {
    responses[String(status)] = {
      description: describeCodes(codes),
      headers: status === 429 || status === 503 ? { ...REQUEST_ID_HEADER, ...RETRY_AFTER_HEADER } : REQUEST_ID_HEADER,
      content: { "application/json": { schema: slots.add(errorEnvelope(codes)) } }
    }
  }
  return {
    operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description === undefined ? {} : { description: operation.description }),
    security: operation.access._tag === "Keyed" ? [{ ApiKey: [] }, { Bearer: [] }] : [],
    ...(operation.parameters === undefined
      ? {}
      : {
          parameters: operation.parameters.map((parameter) => ({
            name: parameter.name,
            in: parameter.in,
            required: parameter.required,
            description: parameter.description,
            schema: slots.add(parameter.schema)
          }))
        }),
    ...(operation.requestBody === undefined
      ? {}
      : {
          requestBody: { required: true, content: { "application/json": { schema: slots.add(operation.requestBody) } } }
        }),
    ...(operation.access._tag === "Keyed" && operation.access.scope !== null ? { "x-required-scope": operation.access.scope } : {}),
    responses
  }
}

const errorTable = () =>
  [
    "| Status | Code | Condition |",
    "|---|---|---|",
    ...apiErrorCodes.map((code) => `| ${errorCatalogue[code].status} | \`${code}\` | ${errorCatalogue[code].description} |`)
  ].join("\n")

const INTRO = [
  "Resolve public media URLs, queue downloads and fetch the files through signed links.",
  'Every success body is `{"data": ...}`; every error is `{"error": {"code", "message", "request_id"}}`.',
  "Send the key as `X-API-Key` (or `Authorization: Bearer`); a key in the query string is never read.",
  "An unknown path answers 404 `not_found` and a known path with another method 405 `method_not_allowed`.",
  "",
  "All error codes:",
  "",
  errorTable()
].join("\n")

export interface OpenApiOptions {
  readonly version: string
  readonly endpoints?: ReadonlyArray<readonly [OperationId | string, Endpoint]>
}

export const buildOpenApiDocument = (options: OpenApiOptions): Json => {
  const slots = new SchemaSlots()
  const paths: Record<string, Record<string, Json>> = {}
  for (const [operationId, endpoint] of options.endpoints ?? v1Endpoints) {
    const path = openApiPath(endpoint.path)
    paths[path] = { ...paths[path], [endpoint.method.toLowerCase()]: operationObject(operationId, endpoint, slots) }
  }
  // The full envelope names ErrorCode, so every code lands in components whichever operations exist.
  const envelopeSlot = slots.add(errorEnvelope())
  const definitions = slots.compile()
  return {
    openapi: "3.1.0",
    info: { title: "Media Download Service API", version: options.version, description: INTRO },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    tags: [
      { name: "Media", description: "Resolve URLs and list platforms." },
      { name: "Jobs", description: "Download jobs and their files." },
      { name: "Subscriptions", description: "Extension: follow a playlist, channel or feed; download what is new, once." },
      {
        name: "Webhooks",
        description: "Extension: signed job.completed/job.failed and subscription.entries_queued/subscription.failing notifications."
      },
      { name: "Service", description: "Health and this document." }
    ],
    paths,
    components: {
      schemas: { ...definitions, ErrorEnvelope: envelopeSlot },
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        Bearer: { type: "http", scheme: "bearer", description: "The same API key as a Bearer token." }
      }
    }
  }
}
