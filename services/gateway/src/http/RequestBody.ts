// Decodes request bodies and URLs with Effect Schema into InvalidRequest failures that name the offending field.
import { Effect, Schema, SchemaIssue } from "effect"
import { UrlNotAllowed } from "@mds/shared/domain/DomainErrors"
import { failsOnlyBeyondTheDocument } from "@mds/shared/api/BeyondTheDocument"
import { InvalidOptions, InvalidRequest } from "./GatewayErrors.ts"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const describe = (issue: SchemaIssue.Issue): string => {
  const { issues } = formatIssues(issue)
  const parts = issues.map((item) => {
    const path = (item.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment))
    return path.length > 0 ? `${path.join(".")}: ${item.message}` : item.message
  })
  // A union reports a missing field once per member; once is enough.
  return parts.length > 0 ? [...new Set(parts)].join("; ") : "The request body is invalid."
}

/**
 * 400 invalid_request for a body the OpenAPI document refuses; 422 invalid_options for one that matches the document
 * and fails only a check it cannot show (BeyondTheDocument.ts).
 */
export const decodeBody = <A, I>(schema: Schema.Codec<A, I>, body: unknown): Effect.Effect<A, InvalidRequest | InvalidOptions> =>
  Schema.decodeUnknownEffect(schema)(body).pipe(
    Effect.mapError((error) =>
      failsOnlyBeyondTheDocument(error.issue)
        ? new InvalidOptions({ message: `Fields that do not fit: ${describe(error.issue)}.` })
        : new InvalidRequest({ message: `Invalid request body: ${describe(error.issue)}.` })
    )
  )

export { HttpUrlString, MAX_URL_LENGTH } from "@mds/shared/api/Requests"

/**
 * The body's schema already holds the URL to http(s)://host...; a host that still does not parse (a control or
 * unassigned character, an IDN label the WHATWG parser refuses) names no address the egress guard can judge, so it is
 * refused as the guard refuses what it cannot vouch for: 422 url_not_allowed, never a 400 for a schema-valid body.
 */
export const parseHttpUrl = (field: string, raw: string): Effect.Effect<URL, InvalidRequest | UrlNotAllowed> => {
  const url = URL.canParse(raw) ? new URL(raw) : null
  if (url === null || url.hostname === "") {
    return Effect.fail(new UrlNotAllowed({ url: raw, message: `${field}: the host cannot be read as a domain name or an IP address.` }))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Effect.fail(new InvalidRequest({ message: `${field}: must be an absolute http or https URL.` }))
  }
  return Effect.succeed(url)
}
